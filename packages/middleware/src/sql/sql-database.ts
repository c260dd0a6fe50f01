import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname } from 'node:path';
import { Worker } from 'node:worker_threads';
import { ServiceError } from '../errors/index.js';
import { writeFileAtomic } from './atomic-write.js';
import type { QueryOutcome, WorkerRequest, WorkerResponse } from './sql-worker-protocol.js';
import type { SqlParams } from './sql-types.js';

export interface SqlDatabaseOptions {
  name: string;
  /** Absolute path of the database file; undefined for an in-memory database. */
  file: string | undefined;
  wasmPath: string;
  workerUrl: URL;
  timeoutMs: number;
  maxRows: number;
}

/**
 * One named database, owned by its own worker thread so a long statement never blocks the event loop.
 * Requests run one at a time. After a request that changed something, the database image is exported
 * and made durable (group commit: requests finishing during a write share the next one) before the
 * request is acknowledged. A statement past `timeoutMs` gets the worker terminated and a new one
 * started from the last committed image.
 */
export class SqlDatabase {
  #worker: Promise<Worker>;
  #image: Uint8Array | null;
  #queue: Promise<unknown> = Promise.resolve();
  #nextId = 0;
  #pending = new Map<number, { resolve: (response: WorkerResponse) => void; reject: (error: unknown) => void }>();
  #persist: { running: Promise<void> | undefined; dirty: boolean; waiters: (() => void)[] } = { running: undefined, dirty: false, waiters: [] };

  constructor(private readonly options: SqlDatabaseOptions) {
    this.#image = options.file ? readImage(options.file) : null;
    if (options.file) mkdirSync(dirname(options.file), { recursive: true });
    this.#worker = this.#startWorker();
  }

  /** Runs one request; resolves once its changes are committed (and durable, for a file database). */
  query(query: string, params: SqlParams | undefined, signal?: AbortSignal): Promise<QueryOutcome> {
    const run = this.#queue.then(async () => {
      if (signal?.aborted) throw new ServiceError('sql_error', 'The client went away before the query ran', { code: 'cancelled' });
      const response = await this.#call({ kind: 'query', id: 0, query, params, maxRows: this.options.maxRows }, true);
      if (response.kind === 'failed') throw new ServiceError('sql_error', response.message, { code: response.code, context: { db: this.options.name } });
      if (response.kind !== 'result') throw new Error(`unexpected worker answer ${response.kind}`);
      return response.result;
    });
    this.#queue = run.catch(() => undefined);
    return run.then(async (result) => {
      if (result.changed) await this.#commit();
      return result;
    });
  }

  async close(): Promise<void> {
    await this.#queue;
    while (this.#persist.running) await this.#persist.running;
    await (await this.#worker).terminate();
  }

  #startWorker(): Promise<Worker> {
    const worker = spawnWorker(this.options.workerUrl, { wasmPath: this.options.wasmPath, image: this.#image });
    worker.unref();
    return new Promise((resolve, reject) => {
      worker.once('error', reject);
      worker.once('message', () => {
        worker.off('error', reject);
        worker.on('message', (response: WorkerResponse) => {
          const waiter = this.#pending.get(response.id);
          this.#pending.delete(response.id);
          waiter?.resolve(response);
        });
        worker.on('error', (error) => this.#failAll(error));
        resolve(worker);
      });
    });
  }

  async #call(request: WorkerRequest, withTimeout: boolean): Promise<WorkerResponse> {
    const worker = await this.#worker;
    const id = ++this.#nextId;
    return new Promise((resolve, reject) => {
      const timer = withTimeout ? setTimeout(() => void this.#timeOut(id), this.options.timeoutMs) : undefined;
      this.#pending.set(id, {
        resolve: (response) => {
          clearTimeout(timer);
          resolve(response);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      worker.postMessage({ ...request, id });
    });
  }

  /** The runaway's worker is terminated; the database comes back from its last committed image. */
  async #timeOut(id: number): Promise<void> {
    const waiter = this.#pending.get(id);
    if (!waiter) return;
    this.#pending.delete(id);
    const old = this.#worker;
    this.#worker = this.#startWorker();
    await (await old).terminate();
    waiter.reject(new ServiceError('sql_error', `The statement ran longer than ${this.options.timeoutMs} ms (sql.timeoutMs) and was stopped; the database is back at its last committed state`, { code: 'statement_timeout', context: { db: this.options.name } }));
  }

  #failAll(error: unknown): void {
    for (const waiter of this.#pending.values()) waiter.reject(error);
    this.#pending.clear();
    this.#worker = this.#startWorker();
  }

  /** Group commit: resolves once an image taken after this call is committed. */
  #commit(): Promise<void> {
    return new Promise((resolve) => {
      this.#persist.waiters.push(resolve);
      this.#persist.dirty = true;
      this.#persist.running ??= this.#persistLoop();
    });
  }

  async #persistLoop(): Promise<void> {
    try {
      while (this.#persist.dirty) {
        this.#persist.dirty = false;
        const waiters = this.#persist.waiters.splice(0);
        const response = await this.#call({ kind: 'export', id: 0 }, false);
        if (response.kind !== 'exported') throw new Error('export failed');
        this.#image = response.bytes;
        if (this.options.file) await writeFileAtomic(this.options.file, response.bytes);
        for (const resolve of waiters) resolve();
      }
    } finally {
      this.#persist.running = undefined;
    }
  }
}

/**
 * Node 20 does not hand tsx's loader hooks to worker threads, so when Tollgate runs from TypeScript source
 * (tests, benchmarks) the worker runs from the build output next to it; `npm test` builds first.
 */
function spawnWorker(url: URL, workerData: unknown): Worker {
  if (!url.pathname.endsWith('.ts')) return new Worker(url, { workerData });
  const built = new URL(url.href.replace('/src/', '/dist/').replace(/\.ts$/, '.js'));
  if (!existsSync(built)) throw new Error(`The SQL worker is not built (${fileURLToPath(built)}); run npm run build`);
  return new Worker(built, { workerData });
}

function readImage(file: string): Uint8Array | null {
  try {
    return readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
