import type { ServerResponse } from 'node:http';

type Listener = () => void;

/**
 * The client leaving before its answer was written: `aborted` turns true and the `abort` listeners run,
 * once. It has the part of EventEmitter's shape that undici reads from a `signal` (`aborted`, `on`,
 * `once`, `removeListener`), so this one object cancels an upstream call, a retry's backoff and a running
 * SQL statement. Not an AbortController, which cost ~10 µs of every relayed call; and it watches the
 * response only once something listens, so an answer that waits on nothing never pays for it.
 */
export class ClientDeparture implements CancelSignal {
  #listeners: Listener[] | undefined;

  constructor(private readonly res: ServerResponse) {}

  /** Named like AbortSignal's, which undici reads. */
  get aborted(): boolean {
    return this.res.destroyed && !this.res.writableFinished;
  }

  once(_event: 'abort', listener: Listener): this {
    if (!this.#listeners) {
      // Watched only once somebody listens: a request answered without waiting on anything never is.
      this.#listeners = [];
      this.res.on('close', () => this.#close());
    }
    this.#listeners.push(listener);
    return this;
  }

  /** undici checks that a signal has `on`; an abort happens once, so `on` is `once`. */
  on(event: 'abort', listener: Listener): this {
    return this.once(event, listener);
  }

  off(_event: 'abort', listener: Listener): this {
    const listeners = this.#listeners;
    const index = listeners ? listeners.lastIndexOf(listener) : -1;
    if (index >= 0) listeners!.splice(index, 1);
    return this;
  }

  removeListener(event: 'abort', listener: Listener): this {
    return this.off(event, listener);
  }

  #close(): void {
    if (!this.aborted) return;
    const listeners = this.#listeners!;
    this.#listeners = [];
    for (const listener of listeners) listener();
  }
}

/** What cancels a call, as the upstream and SQL layers need it: a ClientDeparture, or any signal undici takes. */
export interface CancelSignal {
  readonly aborted: boolean;
  once(event: 'abort', listener: Listener): unknown;
  off(event: 'abort', listener: Listener): unknown;
}
