import type { IncomingHttpHeaders } from 'node:http';
import { errors as undiciErrors, type Dispatcher } from 'undici';
import type { CancelSignal } from '../http/index.js';

/** How a buffered upstream call ended. */
export type WholeAnswerOutcome =
  /** No status arrived: refused or reset connection, headers timeout, or the client left. */
  | { kind: 'failed'; error: Error }
  /** A status arrived; `interrupted` is set when the body then stopped before its end. */
  | { kind: 'answered'; status: number; headers: IncomingHttpHeaders; text: string; interrupted?: Error };

/**
 * An undici dispatch handler that collects an answer's bytes and reports once, at its end. Cancelled
 * by the client's departure like a `request()` with a signal would be.
 *
 * @example
 * agent.dispatch(options, new WholeAnswer(departure, (outcome) => console.log(outcome.kind)));
 */
export class WholeAnswer implements Dispatcher.DispatchHandler {
  #controller: Dispatcher.DispatchController | undefined;
  #status = 0;
  #headers: IncomingHttpHeaders = {};
  #chunks: Buffer[] = [];
  #done = false;

  constructor(
    private readonly signal: CancelSignal,
    private readonly report: (outcome: WholeAnswerOutcome) => void,
  ) {
    signal.once('abort', this.#abort);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.signal.aborted) this.#abort();
  }

  onResponseStart(_controller: Dispatcher.DispatchController, status: number, headers: IncomingHttpHeaders): void {
    if (status < 200) return; // 1xx: informational, the real status follows
    this.#status = status;
    this.#headers = headers;
    this.#chunks.length = 0;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    this.#finish({ kind: 'answered', status: this.#status, headers: this.#headers, text: this.#text() });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
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
    this.signal.off('abort', this.#abort);
    this.report(outcome);
  }

  // Before the request is on a socket there is no controller yet: onRequestStart aborts it then.
  readonly #abort = (): void => {
    this.#controller?.abort(new undiciErrors.RequestAbortedError());
  };
}
