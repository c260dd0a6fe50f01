import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ServiceError } from '../errors/index.js';
import type { CancelSignal } from '../http/client-departure.js';
import type { DatabaseStore } from './database-store.js';
import type { SqlEngine } from './sql-engine.js';
import { unpackColumnTypes, type ColumnType } from './column-types.js';
import type { QueryOutcome, RequestLimits, WorkerData, WorkerRequest, WorkerResponse, WorkerRetiring } from './sql-worker-protocol.js';
import type { SqlParams } from './sql-types.js';
import { WorkerOutbox } from './worker-outbox.js';

export interface SqlDatabaseOptions {
  name: string;
  /** Where its committed state lives: a journaled file, or memory. */
  store: DatabaseStore;
  wasmPath: string;
  workerUrl: URL;
  timeoutMs: number;
  maxRows: number;
  maxDatabaseBytes: number | undefined;
  /** Runs `retry` after `delayMs` (a boot that failed); returns a cancel. Tests inject their own clock. */
  scheduleRetry?: (retry: () => void, delayMs: number) => () => void;
}

/** What a request's flight settles with: the worker's answer, and the durability of the pages it wrote. */
interface Answered {
  /** Streamed `rows` chunks went to the flight's `onRows`; this is the final answer. */
  response: Exclude<WorkerResponse, { kind: 'rows' }>;
  /** Pending while its pages, or earlier requests' pages it may have read, are not durable yet. */
  durable: Promise<void> | undefined;
}

type SuccessResponse = Extract<WorkerResponse, { kind: 'result' | 'json' }>;

interface Flight {
  request: WorkerRequest;
  answer: Promise<Answered>;
  resolve: (answered: Answered) => void;
  reject: (error: unknown) => void;
  /** Its client went away: stopped as soon as it is the one running. */
  cancelled?: boolean;
  /** When it became the oldest in flight, i.e. started running (performance.now()). */
  runningSince?: number;
  /** A streamed answer's chunks, as the worker posts them. */
  onRows?: (text: string) => void;
  /** Its own time limit (a streamed answer's), instead of `timeoutMs`. */
  timeoutMs?: number;
  /** Some of its rows went out: it can never be posted to another worker (they would go out twice). */
  streamed?: boolean;
}

/** How one query runs: its limits, and where a streamed answer's chunks go. */
export interface QueryOptions {
  limits: RequestLimits;
  /** The caller's organization (undefined when `sql.auth` is off): a PostgreSQL pool is shared out by it. */
  org?: string;
  onRows?: (text: string) => void;
  timeoutMs?: number;
}

/** A failed boot is tried again after 1 s, 2 s, 4 s … at most 60 s. */
const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 60_000;

const scheduleWithTimer = (retry: () => void, delayMs: number) => {
  const timer = setTimeout(retry, delayMs);
  timer.unref();
  return () => clearTimeout(timer);
};

/**
 * One named database, owned by its own worker thread so a long statement never blocks the event loop.
 *
 * Requests are pipelined: they are posted as they come and the worker runs them in order, so it never
 * waits for the next message. The worker answers in order, so the oldest request in flight is the one
 * running, and only its clock counts against `timeoutMs`. When it runs over, or its client goes away while
 * it runs (a Cancel in an editor), the worker is terminated and a new one starts from the store, and the
 * requests queued behind the runaway (which never started) are posted to it again. Posting happens
 * synchronously in exactly two places (a new request while a worker is up, all queued requests when one
 * comes up), so nothing is ever posted twice.
 *
 * Each answer carries the pages its request wrote; they go to the store in answer order, the moment the
 * answer arrives, and the request is acknowledged once they are durable (the journal shares one fdatasync
 * among every answer that arrived meanwhile: group commit). A read that arrives while writes before it are
 * not durable waits for them, so no answer shows a change that a crash could still take back. Because the
 * store holds everything every received answer did, a restarted worker loses no answered change: only the
 * stopped request itself is undone.
 *
 * A boot that fails (a corrupt file, a missing journal segment) fails `ready()` and every request with 503
 * `database_unavailable`, never leaves them waiting, and is tried again with backoff until it works.
 */
export class SqlDatabase implements SqlEngine {
  #worker: Worker | undefined;
  #starting: Promise<void>;
  #nextId = 0;
  /** Posted (or to be posted once the worker is up), in worker order. */
  readonly #queue = new Map<number, Flight>();
  /** At most one, due no later than the running request's deadline; re-armed when it fires early. */
  #watchdog: NodeJS.Timeout | undefined;
  /** When the armed watchdog fires (performance.now()). */
  #watchdogDue = 0;
  /** `[0]`: the id (as int32) of the request the current worker runs (held-answers.ts). */
  #progress = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
  /** The current worker's; a new worker gets a new one. */
  #outbox: WorkerOutbox | undefined;
  /** Set while the last boot failed: requests answer it at once instead of queueing. */
  #unavailable: ServiceError | undefined;
  #failedBoots = 0;
  #cancelRetry: (() => void) | undefined;
  #closed = false;

  constructor(private readonly options: SqlDatabaseOptions) {
    this.#starting = this.#boot();
  }

  /** Resolves once the worker has loaded the database; rejects (503 database_unavailable) if it cannot. */
  ready(): Promise<void> {
    return this.#starting;
  }

  /** Runs one request; resolves once its changes are committed (and durable, for a file database). */
  async query(query: string, params: SqlParams | undefined, client: CancelSignal | undefined, options: QueryOptions): Promise<QueryOutcome> {
    const response = await this.#run(query, params, client, options, null);
    if (response.kind !== 'result') throw new Error(`the SQL worker answered ${response.kind} to a query`);
    return response.result;
  }

  /** The same, answered with the wire's JSON text, which the worker builds (SqlService.queryJson). */
  async queryJson(query: string, params: SqlParams | undefined, client: CancelSignal | undefined, options: QueryOptions, context: { db: string }): Promise<string> {
    const response = await this.#run(query, params, client, options, context);
    if (response.kind !== 'json') throw new Error(`the SQL worker answered ${response.kind} to a query for JSON`);
    return response.text;
  }

  /** Runs one request to its successful answer; a failed one throws its ServiceError. */
  async #run(query: string, params: SqlParams | undefined, client: CancelSignal | undefined, options: QueryOptions, jsonContext: { db: string } | null): Promise<SuccessResponse> {
    if (this.#unavailable) throw this.#unavailable;
    if (client?.aborted) throw this.#cancelledError();
    const { id, answer } = this.#send({ kind: 'query', id: 0, query, params, maxRows: this.options.maxRows, limits: options.limits, jsonContext }, options);
    const cancel = () => this.#cancel(id);
    client?.once('abort', cancel);
    let answered: Answered;
    try {
      answered = await answer;
    } finally {
      client?.off('abort', cancel);
    }
    const { response, durable } = answered;
    if (durable) await durable.catch((error: unknown) => this.#notSaved(error));
    if (response.kind === 'failed') {
      const at = response.statementIndex === undefined ? {} : { statement_index: response.statementIndex };
      throw new ServiceError('sql_error', response.message, { code: response.code, context: { db: this.options.name, ...at } });
    }
    return response;
  }

  /** Lets requests in flight finish and their pages reach the disk, then stops the worker. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#cancelRetry?.();
    while (this.#queue.size > 0) {
      await Promise.allSettled([...this.#queue.values()].map((flight) => flight.answer));
    }
    clearTimeout(this.#watchdog);
    await this.#starting.catch(() => undefined);
    await this.#worker?.terminate();
    await this.options.store.close();
  }

  /**
   * Starts a worker from the store. If it cannot start, the requests waiting for it fail with 503 instead
   * of hanging, later ones fail at once, and the boot is tried again after a backoff.
   */
  #boot(): Promise<void> {
    this.#unavailable = undefined;
    const starting = this.#startWorker().then(
      () => {
        this.#failedBoots = 0;
      },
      (error: unknown) => {
        const unavailable = this.#bootFailed(error);
        throw unavailable;
      },
    );
    starting.catch(() => undefined); // reported through ready() and each request, never unhandled
    return starting;
  }

  #bootFailed(error: unknown): ServiceError {
    this.#failedBoots++;
    const delayMs = Math.min(FIRST_RETRY_MS * 2 ** (this.#failedBoots - 1), MAX_RETRY_MS);
    const unavailable = new ServiceError('database_unavailable', `Database "${this.options.name}" could not be loaded (${(error as Error).message}); it is tried again in ${Math.ceil(delayMs / 1000)} s`, { context: { db: this.options.name }, cause: error });
    this.#unavailable = unavailable;
    for (const flight of this.#queue.values()) flight.reject(unavailable);
    this.#queue.clear();
    if (!this.#closed) {
      this.#cancelRetry = (this.options.scheduleRetry ?? scheduleWithTimer)(() => {
        this.#cancelRetry = undefined;
        if (!this.#closed) this.#starting = this.#boot();
      }, delayMs);
    }
    return unavailable;
  }

  async #startWorker(): Promise<void> {
    const image = await this.options.store.load();
    // A large image goes to the worker without a copy (small Buffers may share Node's pool: those are copied).
    // Stores hand over a buffer of their own, possibly larger than the image (recovery's spare room), so its
    // size is no reason to copy: at 512 MiB that clone was a second whole image (README "Recovery time").
    const transfer = image && image.buffer.byteLength >= 65_536 ? [image.buffer as ArrayBuffer] : [];
    const progress = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
    const workerData: WorkerData = { wasmPath: this.options.wasmPath, image, maxDatabaseBytes: this.options.maxDatabaseBytes, progress };
    const worker = await spawnWorker(this.options.workerUrl, workerData, transfer);
    worker.unref();
    await new Promise<void>((resolve, reject) => {
      const failed = (error: unknown) => reject(error instanceof Error ? error : new Error(String(error)));
      worker.once('error', failed);
      worker.once('exit', (code) => failed(new Error(`the SQL worker exited with code ${code} while loading`)));
      worker.once('message', () => {
        worker.off('error', failed);
        worker.removeAllListeners('exit');
        resolve();
      });
    }).catch(async (error: unknown) => {
      await worker.terminate();
      throw error;
    });
    worker.on('message', (message: WorkerResponse | WorkerResponse[] | WorkerRetiring) => {
      if (Array.isArray(message)) for (const response of message) this.#answer(worker, response);
      else if (message.kind === 'retiring') this.#retired(worker);
      else this.#answer(worker, message);
    });
    worker.on('error', (error) => this.#crashed(worker, error));
    // Also while closing: close() waits for the requests queued for this worker (a restart after a runaway was
    // under way), then terminates it. Terminated here instead, they were never posted and close() never resolved.
    this.#worker = worker;
    this.#progress = progress;
    for (const [id, flight] of this.#queue) {
      // A request cancelled while it waited for this worker never starts on it.
      if (flight.cancelled) {
        this.#queue.delete(id);
        flight.reject(this.#cancelledError());
      } else this.#post(flight.request);
    }
    this.#headChanged();
  }

  #send(request: WorkerRequest, options?: Pick<QueryOptions, 'onRows' | 'timeoutMs'>): { id: number; answer: Promise<Answered> } {
    const id = ++this.#nextId;
    request.id = id;
    let settle!: Pick<Flight, 'resolve' | 'reject'>;
    const answer = new Promise<Answered>((resolve, reject) => (settle = { resolve, reject }));
    this.#queue.set(id, { request, answer, onRows: options?.onRows, timeoutMs: options?.timeoutMs, ...settle });
    if (this.#worker) {
      this.#post(request);
      if (this.#queue.size === 1) this.#headChanged();
    }
    return { id, answer };
  }

  /**
   * To the worker in batches (worker-outbox.ts). An outbox belongs to the worker it was filled for; if that
   * worker was replaced meanwhile, the new one already got every queued request.
   */
  #post(request: WorkerRequest): void {
    const worker = this.#worker!;
    if (this.#outbox?.worker !== worker) this.#outbox = new WorkerOutbox(worker);
    this.#outbox.add(request);
  }

  /** In answer order: the pages go to the store now, so the store's order is the worker's. */
  #answer(worker: Worker, response: WorkerResponse): void {
    if (worker !== this.#worker) return;
    if (response.kind === 'rows') {
      const streaming = this.#queue.get(response.id);
      if (!streaming) return;
      streaming.streamed = true;
      return streaming.onRows?.(response.text);
    }
    if (this.#outbox?.worker === worker) this.#outbox.answered();
    const flight = this.#queue.get(response.id);
    if (!flight) return;
    if (response.kind === 'result' && response.packedTypes) (response.result as { column_types: ColumnType[] }).column_types = unpackColumnTypes(response.packedTypes);
    this.#queue.delete(response.id);
    this.#headChanged();
    const { store } = this.options;
    let durable: Promise<void> | undefined;
    if (response.pages && response.pages.length > 0) {
      durable = store.commit(response.pages, response.fileSize!);
      durable.catch(() => this.#storeFailed());
    } else if (store.busy) durable = store.whenDurable();
    flight.resolve({ response, durable });
  }

  /**
   * The worker's heap grew past its limit (sql-worker.ts RETIRE_HEAP_BYTES) and it runs nothing more: a new one
   * loads the store, which holds every answer received. It said so after answering its whole batch, so nothing
   * posted since has been answered (nor streamed a row): those requests run on the new worker, as after a runaway.
   */
  #retired(worker: Worker): void {
    if (worker === this.#worker) this.#restart();
  }

  /** A journal write failed: nothing after it can be acknowledged, so the database reloads from disk. */
  #storeFailed(): void {
    if (this.#worker) this.#restart();
  }

  #notSaved(error: unknown): never {
    throw new ServiceError('database_unavailable', `The change could not be saved on database "${this.options.name}" (${(error as Error).message}); the database reloads from its last saved state`, { context: { db: this.options.name }, cause: error });
  }

  /**
   * The worker answers in order, so the oldest request in flight is the one running now: its clock
   * starts here. The watchdog is not re-armed per request (a timer per point select is measurable);
   * when it fires it checks the deadline of whichever request is running then.
   */
  #headChanged(): void {
    const head = this.#queue.values().next().value;
    if (!this.#worker || !head) return;
    head.runningSince = performance.now();
    const limit = head.timeoutMs ?? this.options.timeoutMs;
    if (head.cancelled) this.#armWatchdog(0);
    // Re-armed only when it would fire after this request's deadline: a streamed answer's longer limit left it late.
    else if (!this.#watchdog || this.#watchdogDue > head.runningSince + limit) this.#armWatchdog(limit);
  }

  #armWatchdog(delayMs: number): void {
    clearTimeout(this.#watchdog);
    this.#watchdogDue = performance.now() + delayMs;
    this.#watchdog = setTimeout(() => this.#watch(), delayMs);
    this.#watchdog.unref();
  }

  #watch(): void {
    this.#watchdog = undefined;
    const head = this.#queue.entries().next();
    if (!this.#worker || head.done) return;
    const [id, flight] = this.#running(...head.value);
    const limit = flight.timeoutMs ?? this.options.timeoutMs;
    const remaining = (flight.runningSince ?? performance.now()) + limit - performance.now();
    if (flight.cancelled) this.#stopRunning(id, this.#cancelledError());
    else if (remaining <= 0) this.#stopRunning(id, this.#timedOutError(limit));
    else this.#armWatchdog(remaining);
  }

  /**
   * The request the worker runs now. It is the oldest in flight unless that one is done and its answer is held
   * in the worker behind a later one (held-answers.ts): then the later one's clock starts when first seen here
   * (so a mispredicted runaway may run up to twice its limit) and the stop is its own, and the held requests,
   * lost with the worker, run again on the next (nothing of theirs was acknowledged).
   */
  #running(headId: number, head: Flight): [number, Flight] {
    const running = Atomics.load(this.#progress, 0);
    if (((running - headId) | 0) <= 0) return [headId, head];
    for (const [id, flight] of this.#queue) {
      if ((id | 0) !== running) continue;
      flight.runningSince ??= performance.now();
      return [id, flight];
    }
    return [headId, head];
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
    if (this.#queue.keys().next().value === id || Atomics.load(this.#progress, 0) === (id | 0)) this.#armWatchdog(0);
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

  /**
   * A fresh worker from the store, which by then holds every page of every answer received (the load
   * waits for them to be durable); requests that never started are posted to it again.
   */
  #restart(): void {
    const old = this.#worker;
    this.#worker = undefined;
    clearTimeout(this.#watchdog);
    this.#watchdog = undefined;
    void old?.terminate();
    // A stream whose rows already went out ends here (its client sees an error line, no end line): run again on
    // the new worker, it would send its header and rows a second time and then an end line.
    for (const [id, flight] of this.#queue) {
      if (!flight.streamed) continue;
      this.#queue.delete(id);
      flight.reject(new ServiceError('database_unavailable', `Database "${this.options.name}" reloaded from its last saved state while this answer streamed (an earlier change could not be saved); send the request again`, { context: { db: this.options.name } }));
    }
    this.#starting = this.#boot();
  }
}

/**
 * Runs the worker module. Built, it is plain JavaScript. From TypeScript source (tests, benchmarks under
 * tsx) the worker needs tsx's loader, which Node 20 does not hand to worker threads: a one-line
 * bootstrap registers it inside the worker and then imports the real module.
 */
async function spawnWorker(url: URL, workerData: WorkerData, transferList: ArrayBuffer[]): Promise<Worker> {
  if (!url.pathname.endsWith('.ts')) return new Worker(url, { workerData, transferList });
  // createRequire rather than import.meta.resolve, which tsx lacks when it runs this module as CommonJS;
  // that resolves the package's CommonJS face, and the worker wants its ES module beside it.
  const tsx = pathToFileURL(createRequire(url).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  const bootstrap = `const { register } = await import(${JSON.stringify(tsx)}); register(); await import(${JSON.stringify(url.href)});`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`), { workerData, transferList });
}
