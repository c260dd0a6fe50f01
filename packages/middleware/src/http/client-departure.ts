import type { ServerResponse } from 'node:http';

/**
 * The client leaving before its answer was written, as a subscription on the response's own `close`
 * event. The SQL path uses this rather than an AbortSignal listener: adding and removing one of those
 * per request cost about a third of a point select's throughput (measured with npm run bench).
 */
export interface ClientDeparture {
  readonly departed: boolean;
  /** Calls `listener` if the client leaves before the answer is written; returns the unsubscribe. */
  onDepart(listener: () => void): () => void;
}

export function clientDepartureOf(res: ServerResponse): ClientDeparture {
  return {
    get departed() {
      return res.destroyed && !res.writableFinished;
    },
    onDepart(listener) {
      const onClose = () => {
        if (!res.writableFinished) listener();
      };
      res.once('close', onClose);
      return () => res.off('close', onClose);
    },
  };
}

/**
 * An AbortSignal that fires if the client leaves before the answer is written, made on first use: only
 * the routes that call upstream need one, and the SQL path is faster without (see above).
 */
export function lazyDepartureSignal(res: ServerResponse): { readonly signal: AbortSignal } {
  let controller: AbortController | undefined;
  return {
    get signal() {
      if (!controller) {
        const made = (controller = new AbortController());
        if (res.destroyed && !res.writableFinished) made.abort();
        else res.once('close', () => res.writableFinished || made.abort());
      }
      return controller.signal;
    },
  };
}
