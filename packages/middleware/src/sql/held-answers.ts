import type { MessagePort } from 'node:worker_threads';
import type { WorkerResponse } from './sql-worker-protocol.js';

/** How long the first of the held answers may wait for the others: a bound on what holding adds to latency. */
const HOLD_MS = 1;

/**
 * The SQL worker's final answers, posted several to a message: each postMessage costs the worker a few µs and
 * the main thread a message event, the largest shares of a point select's cost after the sockets' own (README
 * "Point selects"). Answers are held only while the request about to run is predicted quick (`mayHold`), and
 * at most HOLD_MS; everything held is posted before any other request and at the end of each batch. A
 * misprediction only delays the held answers: the main thread's watchdog reads `progress` (the id of the
 * request running) so a request whose answer is held is never the one stopped (sql-database.ts #watch).
 */
export class HeldAnswers {
  #answers: WorkerResponse[] = [];
  #transfer: ArrayBuffer[] = [];
  #since = 0;

  constructor(
    private readonly port: MessagePort,
    private readonly progress: Int32Array,
  ) {}

  /** Request `id` starts now; `mayHold`: it is predicted quick, so what is held may wait for it. */
  starting(id: number, mayHold: boolean): void {
    if (this.#answers.length > 0 && !(mayHold && performance.now() - this.#since < HOLD_MS)) this.flush();
    Atomics.store(this.progress, 0, id | 0);
  }

  add(response: WorkerResponse, transfer: ArrayBuffer[]): void {
    if (this.#answers.length === 0) this.#since = performance.now();
    this.#answers.push(response);
    for (const buffer of transfer) this.#transfer.push(buffer);
  }

  flush(): void {
    if (this.#answers.length === 0) return;
    this.port.postMessage(this.#answers, this.#transfer);
    this.#answers = [];
    this.#transfer = [];
  }
}
