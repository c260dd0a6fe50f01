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
  /** One listener (most calls have one: the upstream call) or several; undefined until somebody listens. */
  #listeners: Listener | Listener[] | undefined;
  #watching = false;

  constructor(private readonly res: ServerResponse) {}

  /** Named like AbortSignal's. */
  get aborted(): boolean {
    return this.res.destroyed && !this.res.writableFinished;
  }

  once(_event: 'abort', listener: Listener): this {
    if (!this.#watching) {
      // Watched only once somebody listens: a request answered without waiting on anything never is. The
      // response's listener is one shared function that finds this object on the response: no closure per request.
      this.#watching = true;
      (this.res as WatchedResponse)[DEPARTURE] = this;
      this.res.on('close', onResponseClose);
    }
    const listeners = this.#listeners;
    if (listeners === undefined) this.#listeners = listener;
    else if (typeof listeners === 'function') this.#listeners = [listeners, listener];
    else listeners.push(listener);
    return this;
  }

  off(_event: 'abort', listener: Listener): this {
    const listeners = this.#listeners;
    if (listeners === listener) this.#listeners = undefined;
    else if (Array.isArray(listeners)) {
      const index = listeners.lastIndexOf(listener);
      if (index >= 0) listeners.splice(index, 1);
    }
    return this;
  }

  /** The response closed: if it never finished, the client left. */
  closed(): void {
    if (!this.aborted) return;
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (typeof listeners === 'function') listeners();
    else if (listeners) for (const listener of listeners) listener();
  }
}

const DEPARTURE = Symbol('tollgate.departure');
type WatchedResponse = ServerResponse & { [DEPARTURE]?: ClientDeparture };

function onResponseClose(this: WatchedResponse): void {
  this[DEPARTURE]?.closed();
}

/** What cancels a call, as the upstream and SQL layers need it: a ClientDeparture (or an adapter of an AbortSignal). */
export interface CancelSignal {
  readonly aborted: boolean;
  /** Why it fired, when it knows (an attempt's deadline); undefined for a client that left. */
  readonly reason?: unknown;
  once(event: 'abort', listener: Listener): unknown;
  off(event: 'abort', listener: Listener): unknown;
}
