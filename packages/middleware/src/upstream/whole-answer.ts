import type { IncomingHttpHeaders } from 'node:http';
import { errors as undiciErrors, type Dispatcher } from 'undici';
import type { CancelSignal } from '../http/index.js';
import { UpstreamFailure, answerTooLarge, deadlineExceeded } from './upstream-failure.js';

/** How a buffered upstream call ended. */
export type WholeAnswerOutcome =
  /**
   * No usable answer: refused or reset connection, headers timeout, the client left, or a relay limit
   * passed (then `error` is that limit's UpstreamFailure, whatever had arrived).
   */
  | { kind: 'failed'; error: Error }
  /** A status arrived; `interrupted` is set when the body then stopped before its end. */
  | { kind: 'answered'; status: number; headers: IncomingHttpHeaders; text: string; interrupted?: Error };

/** What one buffered answer may cost (README "Relay limits"). */
export interface WholeAnswerLimits {
  maxBytes: number;
  deadlineMs: number;
}

/**
 * An undici dispatch handler that collects an answer's bytes and reports once, at its end. Cancelled
 * by the client's departure like a `request()` with a signal would be, and by its limits: past
 * `maxBytes` or `deadlineMs` (from dispatch, so also while queued for a connection) it reports that
 * limit's failure at once and aborts the request.
 *
 * @example
 * agent.dispatch(options, new WholeAnswer(departure, limits, (outcome) => console.log(outcome.kind)));
 */
export class WholeAnswer implements Dispatcher.DispatchHandler {
  #controller: Dispatcher.DispatchController | undefined;
  #status = 0;
  #headers: IncomingHttpHeaders = {};
  #chunks: Buffer[] = [];
  #bytes = 0;
  #done = false;
  /** Why the request was stopped by this handler (a limit), if it was. */
  #stopped: UpstreamFailure | undefined;
  #timer: NodeJS.Timeout;

  constructor(
    private readonly signal: CancelSignal,
    private readonly limits: WholeAnswerLimits,
    private readonly report: (outcome: WholeAnswerOutcome) => void,
  ) {
    signal.once('abort', this.#abort);
    // The instance as the timer's argument, not a bound closure: one object less per call.
    this.#timer = setTimeout(expire, limits.deadlineMs, this);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#stopped) controller.abort(this.#stopped);
    else if (this.signal.aborted) this.#abort();
  }

  onResponseStart(_controller: Dispatcher.DispatchController, status: number, headers: IncomingHttpHeaders): void {
    if (status < 200) return; // 1xx: informational, the real status follows
    this.#status = status;
    this.#headers = headers;
    this.#chunks.length = 0;
    this.#bytes = 0;
    // A declared length past the limit fails before a byte of the body is read.
    if (Number(headers['content-length']) > this.limits.maxBytes) this.#stop(answerTooLarge('an answer', this.limits.maxBytes));
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#done) return;
    this.#bytes += chunk.length;
    if (this.#bytes > this.limits.maxBytes) this.#stop(answerTooLarge('an answer', this.limits.maxBytes));
    else this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.#done) return;
    let text: string;
    try {
      text = this.#text();
    } catch (error) {
      // Decoding throws for a text past V8's maximum string length (2^29 - 24 characters, just under
      // 512 MiB, the most maxAnswerBytes allows). Thrown inside undici's callback it was swallowed and
      // the caller never answered; it is an answer too large, reported like the limit.
      this.#finish({ kind: 'failed', error: new UpstreamFailure('Upstream provider sent an answer too large to decode as text', { exceeded: 'answer_size', cause: error }) });
      return;
    }
    this.#finish({ kind: 'answered', status: this.#status, headers: this.#headers, text });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.#done) return;
    if (this.#status === 0 || this.signal.aborted) this.#finish({ kind: 'failed', error });
    else this.#finish({ kind: 'answered', status: this.#status, headers: this.#headers, text: this.#text(), interrupted: error });
  }

  #text(): string {
    const chunks = this.#chunks;
    return chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
  }

  #finish(outcome: WholeAnswerOutcome): void {
    if (this.#done) return;
    this.#done = true;
    this.#chunks = [];
    clearTimeout(this.#timer);
    this.signal.off('abort', this.#abort);
    this.report(outcome);
  }

  /** A limit passed: the caller hears it now, and the request (queued, waiting or reading) is cut. */
  #stop(failure: UpstreamFailure): void {
    if (this.#done) return;
    this.#stopped = failure;
    this.#finish({ kind: 'failed', error: failure });
    this.#controller?.abort(failure);
  }

  /** The attempt's deadline passed. */
  expired(): void {
    this.#stop(deadlineExceeded(this.limits.deadlineMs));
  }

  // Before the request is on a socket (queued for a connection) there is no controller yet: the caller hears
  // it now, as a stream's does, and onRequestStart aborts the request then.
  readonly #abort = (): void => {
    const error = new undiciErrors.RequestAbortedError();
    if (this.#controller) this.#controller.abort(error);
    else this.#finish({ kind: 'failed', error });
  };
}

function expire(answer: WholeAnswer): void {
  answer.expired();
}
