import type { ServerResponse } from 'node:http';

type Listener = () => void;

/**
 * The client leaving before its answer was written: `aborted` turns true and the `abort` listeners run,
 * once. This one object cancels an upstream call, a retry's backoff and a running SQL statement. Not an
 * AbortController, which cost ~10 µs of every relayed call; and it watches the response only once
 * something listens, so an answer that waits on nothing never pays for it. It is never handed to undici
 * as a `signal` (undici's next major takes only an AbortSignal there): the upstream calls' dispatch
 * handlers (upstream/whole-answer.ts, upstream/streamed-answer.ts) listen to it and abort through undici's controller.
 */
export class ClientDeparture implements CancelSignal {
  #listeners: Listener[] | undefined;

  constructor(private readonly res: ServerResponse) {}

  /** Named like AbortSignal's. */
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

  off(_event: 'abort', listener: Listener): this {
    const listeners = this.#listeners;
    const index = listeners ? listeners.lastIndexOf(listener) : -1;
    if (index >= 0) listeners!.splice(index, 1);
    return this;
  }

  #close(): void {
    if (!this.aborted) return;
    const listeners = this.#listeners!;
    this.#listeners = [];
    for (const listener of listeners) listener();
  }
}

/** What cancels a call, as the upstream and SQL layers need it: a ClientDeparture (or an adapter of an AbortSignal). */
export interface CancelSignal {
  readonly aborted: boolean;
  /** Why it fired, when it knows (an attempt's deadline); undefined for a client that left. */
  readonly reason?: unknown;
  once(event: 'abort', listener: Listener): unknown;
  off(event: 'abort', listener: Listener): unknown;
}
