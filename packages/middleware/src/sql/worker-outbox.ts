import type { Worker } from 'node:worker_threads';
import type { WorkerRequest } from './sql-worker-protocol.js';

/**
 * The requests on their way to one worker, posted one batch at a time: a batch goes out once the worker has
 * answered every request of the one before (and the turn of the event loop that filled it ended). Each
 * postMessage wakes a sleeping worker thread, and that wake-up was the largest cost a point select paid on
 * the main thread (~12 of ~58 µs, README "Point selects"); requests that arrive while the worker is busy
 * would only queue inside it, so they wait here instead and travel together. The worker runs them in order
 * either way, so no request starts later for it.
 */
export class WorkerOutbox {
  #waiting: WorkerRequest[] = [];
  /** Posted and not yet answered. */
  #unanswered = 0;
  #flushScheduled = false;

  constructor(readonly worker: Worker) {}

  add(request: WorkerRequest): void {
    this.#waiting.push(request);
    this.#scheduleFlush();
  }

  /** One final answer (not a streamed chunk) came back from the worker. */
  answered(): void {
    this.#unanswered--;
    if (this.#unanswered === 0 && this.#waiting.length > 0) this.#scheduleFlush();
  }

  /** Later in this turn: every request that arrives in it joins the batch. */
  #scheduleFlush(): void {
    if (this.#flushScheduled || this.#unanswered > 0) return;
    this.#flushScheduled = true;
    setImmediate(() => {
      this.#flushScheduled = false;
      if (this.#unanswered > 0 || this.#waiting.length === 0) return;
      const batch = this.#waiting;
      this.#waiting = [];
      this.#unanswered = batch.length;
      this.worker.postMessage(batch);
    });
  }
}
