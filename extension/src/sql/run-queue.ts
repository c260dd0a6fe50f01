/** What a run waited and took: a run queued behind another is not charged the other's time. */
export interface Timed<T> {
  value: T;
  /** Time spent behind earlier runs, before this one was sent. */
  waitedMs: number;
  /** Time from sending the run to its answer. */
  elapsedMs: number;
}

/**
 * Runs SQL one at a time, in order, and times each from the moment it starts. Before, a `SELECT 42`
 * sent while a slow query ran was reported as taking the slow query's time ("26461 ms", issue 18 #4).
 *
 * @example
 * const queue = new RunQueue(() => performance.now());
 * const { value, waitedMs, elapsedMs } = await queue.run('people.sql', (behind) => showQueued(behind), () => client.sql(sql));
 */
export class RunQueue {
  #tail: Promise<unknown> = Promise.resolve();
  /** Labels of the runs sent and not finished, in order: the first one executes. */
  readonly #pending: string[] = [];

  constructor(private readonly now: () => number) {}

  /** Queues `work`; `onQueued` hears the label of the run it waits for when there is one. */
  run<T>(label: string, onQueued: (behind: string) => void, work: () => Promise<T>): Promise<Timed<T>> {
    const queuedAt = this.now();
    if (this.#pending.length > 0) onQueued(this.#pending[0]!);
    this.#pending.push(label);
    const result = this.#tail.then(async () => {
      const startedAt = this.now();
      try {
        const value = await work();
        return { value, waitedMs: Math.round(startedAt - queuedAt), elapsedMs: Math.round(this.now() - startedAt) };
      } finally {
        this.#pending.shift();
      }
    });
    this.#tail = result.catch(() => undefined);
    return result;
  }
}
