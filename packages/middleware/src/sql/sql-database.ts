import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ServiceError } from '../errors/index.js';
import type { CancelSignal } from '../http/client-departure.js';
import { writeFileAtomic } from './atomic-write.js';
import type { QueryOutcome, RequestLimits, WorkerRequest, WorkerResponse } from './sql-worker-protocol.js';
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

interface Flight {
  request: WorkerRequest;
  answer: Promise<WorkerResponse>;
  resolve: (response: WorkerResponse) => void;
  reject: (error: unknown) => void;
  /** Its client went away: stopped as soon as it is the one running. */
  cancelled?: boolean;
  /** When it became the oldest in flight, i.e. started running (performance.now()). */
  runningSince?: number;
  /** A streamed answer's chunks, as the worker posts them. */
  onRows?: (text: string) => void;
  /** Its own time limit (a streamed answer's), instead of `timeoutMs`. */
  timeoutMs?: number;
}

/** How one query runs: its limits, and where a streamed answer's chunks go. */
export interface QueryOptions {
  limits: RequestLimits;
  onRows?: (text: string) => void;
  timeoutMs?: number;
}

/** A request whose change the worker made but no export has captured yet: acknowledged only once one has. */
interface Unsaved {
  id: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * One named database, owned by its own worker thread so a long statement never blocks the event loop.
 *
 * Requests are pipelined: they are posted as they come and the worker runs them in order, so it never
 * waits for the next message. The worker answers in order, so the oldest request in flight is the one
 * running, and only its clock counts against `timeoutMs`. When it runs over, or its client goes away while
 * it runs (a Cancel in an editor), the worker is terminated, a new one starts from the last exported image, and the requests queued behind the runaway (which never
 * started) are posted to it again. Posting happens synchronously in exactly two places (a new request
 * while a worker is up, all queued requests when one comes up), so nothing is ever posted twice.
 *
 * After a request that changed something, the image is exported and made durable before the request is
 * acknowledged (group commit: every change made before an export shares it). A change the worker made
 * but no export captured when the worker had to be stopped is gone with it; those requests answer 503
 * `rolled_back` rather than be acknowledged, so an acknowledged change is never lost.
 */
export class SqlDatabase {
  #worker: Worker | undefined;
  #starting: Promise<void>;
  #image: Uint8Array | null;
  #nextId = 0;
  /** Posted (or to be posted once the worker is up), in worker order. */
  readonly #queue = new Map<number, Flight>();
  /** At most one, due no later than the running request's deadline; re-armed when it fires early. */
  #watchdog: NodeJS.Timeout | undefined;
  #unsaved: Unsaved[] = [];
  #outbox: { worker: Worker; requests: WorkerRequest[] } | undefined;
  #persisting: Promise<void> | undefined;

  constructor(private readonly options: SqlDatabaseOptions) {
    this.#image = options.file ? readImage(options.file) : null;
    if (options.file) mkdirSync(dirname(options.file), { recursive: true });
    this.#starting = this.#boot();
  }

  /** Resolves once the worker has loaded the database; rejects if it cannot start. */
  ready(): Promise<void> {
    return this.#starting;
  }

  /** Runs one request; resolves once its changes are committed (and durable, for a file database). */
  async query(query: string, params: SqlParams | undefined, client: CancelSignal | undefined, options: QueryOptions): Promise<QueryOutcome> {
    if (client?.aborted) throw this.#cancelledError();
    const { id, answer } = this.#send({ kind: 'query', id: 0, query, params, maxRows: this.options.maxRows, limits: options.limits }, options);
    const cancel = () => this.#cancel(id);
    client?.once('abort', cancel);
    let response: WorkerResponse;
    try {
      response = await answer;
    } finally {
      client?.off('abort', cancel);
    }
    if (response.kind === 'failed') {
      const at = response.statementIndex === undefined ? {} : { statement_index: response.statementIndex };
      throw new ServiceError('sql_error', response.message, { code: response.code, context: { db: this.options.name, ...at } });
    }
    if (response.kind !== 'result') throw new Error(`unexpected worker answer ${response.kind}`);
    if (response.result.changed) await this.#commit(id);
    return response.result;
  }

  /** Lets requests in flight finish and the last image reach the disk, then stops the worker. */
  async close(): Promise<void> {
    while (this.#queue.size > 0 || this.#persisting) {
      await Promise.allSettled([this.#persisting, ...[...this.#queue.values()].map((flight) => flight.answer)]);
    }
    clearTimeout(this.#watchdog);
    await this.#starting.catch(() => undefined);
    await this.#worker?.terminate();
  }

  /** Starts a worker; if it cannot start, the requests waiting for it fail instead of hanging. */
  #boot(): Promise<void> {
    const starting = this.#startWorker();
    starting.catch((error: unknown) => {
      for (const flight of this.#queue.values()) flight.reject(error);
      this.#queue.clear();
    });
    return starting;
  }

  async #startWorker(): Promise<void> {
    const worker = await spawnWorker(this.options.workerUrl, { wasmPath: this.options.wasmPath, image: this.#image });
    worker.unref();
    await new Promise<void>((resolve, reject) => {
      worker.once('error', reject);
      worker.once('message', () => {
        worker.off('error', reject);
        resolve();
      });
    });
    worker.on('message', (response: WorkerResponse) => this.#answer(worker, response));
    worker.on('error', (error) => this.#crashed(worker, error));
    this.#worker = worker;
    for (const [id, flight] of this.#queue) {
      // A request cancelled while it waited for this worker never starts on it.
      if (flight.cancelled) {
        this.#queue.delete(id);
        flight.reject(this.#cancelledError());
      } else this.#post(flight.request);
    }
    this.#headChanged();
  }

  #send(request: WorkerRequest, options?: Pick<QueryOptions, 'onRows' | 'timeoutMs'>): { id: number; answer: Promise<WorkerResponse> } {
    const id = ++this.#nextId;
    const message = { ...request, id };
    let settle!: Pick<Flight, 'resolve' | 'reject'>;
    const answer = new Promise<WorkerResponse>((resolve, reject) => (settle = { resolve, reject }));
    this.#queue.set(id, { request: message, answer, onRows: options?.onRows, timeoutMs: options?.timeoutMs, ...settle });
    if (this.#worker) {
      this.#post(message);
      if (this.#queue.size === 1) this.#headChanged();
    }
    return { id, answer };
  }

  /**
   * Requests that arrive in one turn of the event loop go to the worker as one message: a message per
   * point select was the largest cost Tollgate added on the main thread. An outbox belongs to the worker
   * it was filled for; if that worker was replaced meanwhile, the new one already got every queued request.
   */
  #post(request: WorkerRequest): void {
    const worker = this.#worker!;
    if (this.#outbox?.worker === worker) return void this.#outbox.requests.push(request);
    const outbox = (this.#outbox = { worker, requests: [request] });
    setImmediate(() => {
      if (this.#outbox === outbox) this.#outbox = undefined;
      if (worker === this.#worker) worker.postMessage(outbox.requests);
    });
  }

  #answer(worker: Worker, response: WorkerResponse): void {
    if (worker !== this.#worker) return;
    const flight = this.#queue.get(response.id);
    if (!flight) return;
    if (response.kind === 'rows') return flight.onRows?.(response.text);
    this.#queue.delete(response.id);
    this.#headChanged();
    flight.resolve(response);
  }

  /**
   * The worker answers in order, so the oldest request in flight is the one running now: its clock
   * starts here. The watchdog is not re-armed per request (a timer per point select is measurable);
   * when it fires it checks the deadline of whichever request is running then.
   */
  #headChanged(): void {
    const head = this.#queue.values().next().value;
    if (!this.#worker || head?.request.kind !== 'query') return;
    head.runningSince = performance.now();
    if (head.cancelled) this.#armWatchdog(0);
    else if (!this.#watchdog) this.#armWatchdog(this.options.timeoutMs);
  }

  #armWatchdog(delayMs: number): void {
    clearTimeout(this.#watchdog);
    this.#watchdog = setTimeout(() => this.#watch(), delayMs);
    this.#watchdog.unref();
  }

  #watch(): void {
    this.#watchdog = undefined;
    const head = this.#queue.entries().next();
    if (!this.#worker || head.done || head.value[1].request.kind !== 'query') return;
    const [id, flight] = head.value;
    const limit = flight.timeoutMs ?? this.options.timeoutMs;
    const remaining = (flight.runningSince ?? performance.now()) + limit - performance.now();
    if (flight.cancelled) this.#stopRunning(id, this.#cancelledError());
    else if (remaining <= 0) this.#stopRunning(id, this.#timedOutError(limit));
    else this.#armWatchdog(remaining);
  }

  /**
   * A client that went away stops its statement: at once if it is running, else when its turn comes
   * (it was already posted, so the worker would run it). Worth a worker restart only because a query
   * still running when its client leaves is, as a rule, a long one.
   */
  #cancel(id: number): void {
    const flight = this.#queue.get(id);
    if (!flight) return;
    flight.cancelled = true;
    if (this.#queue.keys().next().value === id) this.#armWatchdog(0);
  }

  /** Stops the running request by replacing its worker; the requests queued behind it run on the new one. */
  #stopRunning(id: number, error: ServiceError): void {
    const running = this.#queue.get(id);
    if (!running) return;
    this.#queue.delete(id);
    running.reject(error);
    this.#restart();
  }

  #timedOutError(limit: number): ServiceError {
    return new ServiceError('sql_error', `The statement ran longer than ${limit} ms (sql.${limit === this.options.timeoutMs ? 'timeoutMs' : 'streamTimeoutMs'}) and was stopped; the database is back at its last committed state`, { code: 'statement_timeout', context: { db: this.options.name } });
  }

  #cancelledError(): ServiceError {
    return new ServiceError('sql_error', 'The client went away; the statement was stopped and its changes rolled back', { code: 'cancelled', context: { db: this.options.name } });
  }

  #crashed(worker: Worker, error: unknown): void {
    if (worker !== this.#worker) return;
    for (const flight of this.#queue.values()) flight.reject(error);
    this.#queue.clear();
    this.#restart();
  }

  /** A fresh worker from the last exported image; requests that never started there are posted again. */
  #restart(): void {
    const old = this.#worker;
    this.#worker = undefined;
    clearTimeout(this.#watchdog);
    this.#watchdog = undefined;
    void old?.terminate();
    // Changes made after the last export lived only in the stopped worker: never acknowledge them.
    for (const unsaved of this.#unsaved.splice(0)) {
      unsaved.reject(new ServiceError('sql_error', `Another statement on database "${this.options.name}" was stopped (past sql.timeoutMs, or cancelled by its client) before this request's change was saved; the change was rolled back and can be sent again`, { status: 503, code: 'rolled_back', context: { db: this.options.name } }));
    }
    this.#starting = this.#boot();
  }

  /** Group commit: resolves once an export taken after request `id` ran is durable. */
  #commit(id: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#unsaved.push({ id, resolve, reject });
      this.#persisting ??= this.#persistLoop().finally(() => (this.#persisting = undefined));
    });
  }

  async #persistLoop(): Promise<void> {
    while (this.#unsaved.length > 0) {
      const { id: exportId, answer } = this.#send({ kind: 'export', id: 0 });
      const response = await answer.catch(() => undefined);
      if (response?.kind !== 'exported') continue; // the worker was replaced: its unsaved requests were rolled back
      this.#image = response.bytes;
      // The worker runs in order: the export captured every change of a request posted before it.
      const covered = this.#unsaved.filter((unsaved) => unsaved.id < exportId);
      this.#unsaved = this.#unsaved.filter((unsaved) => unsaved.id > exportId);
      try {
        if (this.options.file) await writeFileAtomic(this.options.file, response.bytes);
        for (const unsaved of covered) unsaved.resolve();
      } catch (error) {
        for (const unsaved of covered) unsaved.reject(error);
      }
    }
  }
}

/**
 * Runs the worker module. Built, it is plain JavaScript. From TypeScript source (tests, benchmarks under
 * tsx) the worker needs tsx's loader, which Node 20 does not hand to worker threads: a one-line
 * bootstrap registers it inside the worker and then imports the real module.
 */
async function spawnWorker(url: URL, workerData: unknown): Promise<Worker> {
  if (!url.pathname.endsWith('.ts')) return new Worker(url, { workerData });
  // createRequire rather than import.meta.resolve, which tsx lacks when it runs this module as CommonJS;
  // that resolves the package's CommonJS face, and the worker wants its ES module beside it.
  const tsx = pathToFileURL(createRequire(url).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  const bootstrap = `const { register } = await import(${JSON.stringify(tsx)}); register(); await import(${JSON.stringify(url.href)});`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`), { workerData });
}

function readImage(file: string): Uint8Array | null {
  try {
    return readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
