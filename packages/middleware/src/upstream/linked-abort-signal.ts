import type { CancelSignal } from '../http/index.js';

/** A real AbortSignal tied to a CancelSignal for the length of one upstream call. */
export interface LinkedAbortSignal {
  signal: AbortSignal;
  /** Stops watching the CancelSignal: call it once the call is over, so a request's listeners do not pile up across retries. */
  release(): void;
}

const noop = (): void => undefined;

/**
 * The AbortSignal undici's `request()` documents, aborted when the client departs. The departure itself
 * is not handed to undici: undici 7 happens to accept any object with `on`/`aborted`, but its next major
 * passes a signal to Node's `addAbortListener`, which throws on anything but an AbortSignal. The
 * controller is made only here, when a streamed upstream call starts, so requests that never stream never
 * pay for one (DESIGN: an AbortController per request was ~10 µs of every relayed call).
 *
 * @example
 * const link = linkedAbortSignal(ctx.departure);
 * try { await agent.request({ ...options, signal: link.signal }) } finally { link.release() }
 */
export function linkedAbortSignal(cancel: CancelSignal): LinkedAbortSignal {
  const controller = new AbortController();
  // A signal that knows why it fired (an attempt's deadline) passes that on: undici fails the body with it.
  const abort = (): void => controller.abort(cancel.reason);
  if (cancel.aborted) {
    abort();
    return { signal: controller.signal, release: noop };
  }
  cancel.once('abort', abort);
  return { signal: controller.signal, release: () => cancel.off('abort', abort) };
}
