import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';

/**
 * The client leaving before its answer was written: `aborted` turns true and `abort` is emitted, once.
 * An EventEmitter with `aborted` is a signal undici accepts as it is, so this one object cancels an
 * upstream call, a retry's backoff and a running SQL statement. Not an AbortController: making one per
 * request cost ~10 µs of a relayed call, and AbortSignal listeners added and removed per request cut
 * point-select throughput by a third (both measured with npm run bench).
 */
export class ClientDeparture extends EventEmitter {
  constructor(private readonly res: ServerResponse) {
    super();
    res.once('close', () => {
      if (this.aborted) this.emit('abort');
    });
  }

  /** Named like AbortSignal's, which undici reads. */
  get aborted(): boolean {
    return this.res.destroyed && !this.res.writableFinished;
  }
}

/** What cancels a call, as the upstream and SQL layers need it: a ClientDeparture, or any signal undici takes. */
export type CancelSignal = Pick<EventEmitter, 'once' | 'off'> & { readonly aborted: boolean };
