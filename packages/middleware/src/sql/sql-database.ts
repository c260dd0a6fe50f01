import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
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

interface InFlight {
  request: WorkerRequest;
  answer: Promise<WorkerResponse>;
  resolve: (response: WorkerResponse) => void;
  reject: (error: unknown) => void;
}

/**
 * One named database, owned by its own worker thread so a long statement never blocks the event loop.
 *
 * Requests are pipelined: the worker runs them one after another from its queue, so it is never idle
 * waiting for the next message. Only the request at the head is running, so only its clock counts
 * against `timeoutMs`; when it runs over, the worker is terminated, a new one starts from the last
 * committed image, and the requests queued behind the runaway (which never started) are sent again.
 *
 * After a request that changed something, the image is exported and made durable (group commit:
 * requests finishing during a write share the next one) before the request is acknowledged.
 */
export class SqlDatabase {
  #worker: Promise<Worker>;
  #image: Uint8Array | null;
  #nextId = 0;
  readonly #inFlight = new Map<number, InFlight>();
  #headTimer: NodeJS.Timeout | undefined;
  #persist: { running: Promise<void> | undefined; dirty: boolean; waiters: (() => void)[] } = { running: undefined, dirty: false, waiters: [] };

  constructor(private readonly options: SqlDatabaseOptions) {
    this.#image = options.file ? readImage(options.file) : null;
    if (options.file) mkdirSync(dirname(options.file), { recursive: true });
    this.#worker = this.#startWorker();
  }

  /** Runs one request; resolves once its changes are committed (and durable, for a file database). */
  async query(query: string, params: SqlParams | undefined, signal?: AbortSignal): Promise<QueryOutcome> {
    if (signal?.aborted) throw new ServiceError('sql_error', 'The client went away before the query ran', { code: 'cancelled' });
    const response = await this.#send({ kind: 'query', id: 0, query, params, maxRows: this.options.maxRows });
    if (response.kind === 'failed') throw new ServiceError('sql_error', response.message, { code: response.code, context: { db: this.options.name } });
    if (response.kind !== 'result') throw new Error(`unexpected worker answer ${response.kind}`);
    if (response.result.changed) await this.#commit();
    return response.result;
  }

  /** Lets requests in flight finish and the last image reach the disk, then stops the worker. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.#inFlight.values()].map((flight) => flight.answer));
    while (this.#persist.running) await this.#persist.running;
    clearTimeout(this.#headTimer);
    await (await this.#worker).terminate();
  }

  #startWorker(): Promise<Worker> {
    const worker = spawnWorker(this.options.workerUrl, { wasmPath: this.options.wasmPath, image: this.#image });
    worker.unref();
    return new Promise((resolve, reject) => {
      worker.once('error', reject);
      worker.once('message', () => {
        worker.off('error', reject);
        worker.on('message', (response: WorkerResponse) => this.#answer(response));
        worker.on('error', (error) => this.#crashed(worker, error));
        resolve(worker);
      });
    });
  }

  async #send(request: WorkerRequest): Promise<WorkerResponse> {
    const id = ++this.#nextId;
    const message = { ...request, id };
    let settle!: Pick<InFlight, 'resolve' | 'reject'>;
    const answer = new Promise<WorkerResponse>((resolve, reject) => (settle = { resolve, reject }));
    this.#inFlight.set(id, { request: message, answer, ...settle });
    if (this.#inFlight.size === 1) this.#armHeadTimer();
    (await this.#worker).postMessage(message);
    return answer;
  }

  #answer(response: WorkerResponse): void {
    const flight = this.#inFlight.get(response.id);
    if (!flight) return;
    this.#inFlight.delete(response.id);
    this.#armHeadTimer();
    flight.resolve(response);
  }

  /** The worker answers in order, so the oldest request in flight is the one running now. */
  #armHeadTimer(): void {
    clearTimeout(this.#headTimer);
    const head = this.#inFlight.entries().next();
    if (head.done || head.value[1].request.kind !== 'query') return;
    const [id] = head.value;
    this.#headTimer = setTimeout(() => void this.#timeOut(id), this.options.timeoutMs);
    this.#headTimer.unref();
  }

  async #timeOut(id: number): Promise<void> {
    const runaway = this.#inFlight.get(id);
    if (!runaway) return;
    this.#inFlight.delete(id);
    runaway.reject(new ServiceError('sql_error', `The statement ran longer than ${this.options.timeoutMs} ms (sql.timeoutMs) and was stopped; the database is back at its last committed state`, { code: 'statement_timeout', context: { db: this.options.name } }));
    await this.#restart();
  }

  #crashed(worker: Worker, error: unknown): void {
    void this.#worker.then((current) => {
      if (current !== worker) return;
      for (const flight of this.#inFlight.values()) flight.reject(error);
      this.#inFlight.clear();
      void this.#restart();
    });
  }

  /** A fresh worker from the last committed image; requests that never started there are sent again. */
  async #restart(): Promise<void> {
    const old = this.#worker;
    this.#worker = this.#startWorker();
    await (await old).terminate();
    const worker = await this.#worker;
    for (const flight of this.#inFlight.values()) worker.postMessage(flight.request);
    this.#armHeadTimer();
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
        const response = await this.#send({ kind: 'export', id: 0 });
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
