import type { IncomingHttpHeaders } from 'node:http';
import { errors as undiciErrors, type Dispatcher } from 'undici';
import type { CancelSignal } from '../http/index.js';
import type { FrameDecoder, FrameDecoding } from './frame-decoder.js';
import type { SseLimits } from './read-sse.js';
import { deadlineExceeded, UpstreamFailure } from './upstream-failure.js';

/** How a streamed call's answer began. */
export type StreamHead =
  /** A 2xx: its body streams on through `relay`. */
  | { kind: 'streaming'; status: number; headers: IncomingHttpHeaders }
  /** An error status, with at most `maxErrorBytes` of its body ('' when the body broke off). */
  | { kind: 'refused'; status: number; headers: IncomingHttpHeaders; text: string }
  /** No answer: unreachable, headers timeout, the client left, or the attempt's deadline passed. */
  | { kind: 'failed'; error: Error };

/** Where a relayed stream's events go: the translator and the client's writer. */
export interface EventSink<Event> {
  /** One event. false when the client's buffer is full: the upstream body pauses until `drained()` resolves. */
  push(event: Event): boolean;
  /** Resolves once the client read what was buffered; rejects when it left or read nothing for too long. */
  drained(): Promise<void>;
}

/** A successful streamed answer's body, as the relay consumes it. */
export interface UpstreamBody {
  /**
   * Pushes the body through its framing into `sink` as the bytes arrive, with the client's backpressure
   * reaching undici (pause/resume). Resolves at the body's normal end, after its last event; rejects with
   * why it stopped (the provider broke off, a limit passed, bad framing, the sink threw or the client left).
   */
  relay<Event>(decoding: FrameDecoding<Event>, limits: SseLimits, secrets: readonly string[], sink: EventSink<Event>): Promise<void>;
  /** Cuts the upstream request (its connection goes); a no-op once the body ended. */
  destroy(): void;
}

/**
 * The undici dispatch handler of one streamed upstream attempt, and its body. Cancelled by the client's
 * departure and by the attempt's overall deadline (from dispatch, so also while queued for a connection):
 * past the deadline the attempt fails with the deadline's UpstreamFailure, before or after its head.
 *
 * Why a handler and not `request()`: a stream held through `request()` kept a BodyReadable, node's async
 * iterator over it with its end-of-stream watchers, an async generator per framing, an AbortController
 * and undici's RequestHandler alive for its whole life (README "Many open streams" measures it).
 *
 * @example
 * agent.dispatch(options, new StreamedAnswer(departure, 1_800_000, 32 * 2 ** 20, (head) => console.log(head.kind)));
 */
export class StreamedAnswer implements Dispatcher.DispatchHandler, UpstreamBody {
  #controller: Dispatcher.DispatchController | undefined;
  /** Told once, when the head is known; dropped then, so it keeps nothing alive for the stream's life. */
  #report: ((head: StreamHead) => void) | undefined;
  #status = 0;
  #headers: IncomingHttpHeaders = {};
  /** An error answer's bytes, while it is read. */
  #errorChunks: Buffer[] | undefined;
  #errorBytes = 0;
  /** The body's chunks that came before `relay` was called. */
  #early: Buffer[] | undefined;
  #decoder: FrameDecoder | undefined;
  #sink: EventSink<never> | undefined;
  #resolve: (() => void) | undefined;
  #reject: ((error: Error) => void) | undefined;
  /** The body ended normally before `relay` was called. */
  #ended = false;
  /** Why the attempt stopped, once it did (`relay` called later rejects with it). */
  #failure: Error | undefined;
  /** The relay's outcome was told, or the head failed: nothing more to do. */
  #done = false;
  /** undici is done with the request (ended, failed or aborted). */
  #over = false;
  #waiting = false;
  #timer: NodeJS.Timeout;

  constructor(
    private readonly signal: CancelSignal,
    private readonly deadlineMs: number,
    private readonly maxErrorBytes: number,
    report: (head: StreamHead) => void,
  ) {
    this.#report = report;
    signal.once('abort', this.#abort);
    // The instance as the timer's argument, not a bound closure: one object less per open stream.
    this.#timer = setTimeout(expire, deadlineMs, this);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#failure) controller.abort(this.#failure);
    else if (this.signal.aborted) this.#abort();
  }

  onResponseStart(controller: Dispatcher.DispatchController, status: number, headers: IncomingHttpHeaders): void {
    if (status < 200 || this.#done) return; // 1xx: informational, the real status follows
    // undici's controller keeps the raw header Buffers (for handlers that want them) as long as the request
    // lives: ~1.1 KiB an open stream, and this handler reads the parsed headers only.
    if ('rawHeaders' in controller) controller.rawHeaders = null;
    this.#status = status;
    if (status >= 300) {
      this.#headers = headers;
      this.#errorChunks = [];
    } else this.#tell({ kind: 'streaming', status, headers });
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#done) return;
    const errorChunks = this.#errorChunks;
    if (errorChunks) {
      errorChunks.push(chunk);
      this.#errorBytes += chunk.length;
      // Enough of an error body to name the error: the rest is dropped with the connection.
      if (this.#errorBytes > this.maxErrorBytes) {
        this.#refused();
        this.#over = true;
        controller.abort(new undiciErrors.RequestAbortedError());
      }
      return;
    }
    if (this.#decoder) return this.#feed(chunk);
    // Bytes that came with the head, before the relay attached: held, and undici pauses until it does, so a
    // relay that never starts cannot pile up the provider's output here.
    (this.#early ??= []).push(chunk);
    controller.pause();
  }

  onResponseEnd(): void {
    this.#over = true;
    if (this.#done) return;
    if (this.#errorChunks) this.#refused();
    else if (this.#decoder) this.#end();
    else this.#ended = true;
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.#over = true;
    if (this.#done) return;
    const reason = this.#failure ?? error;
    if (this.#status === 0) return this.#finish({ kind: 'failed', error: reason });
    if (this.#errorChunks) {
      // An error answer that broke off is still that status; past the deadline it is the deadline's failure.
      if (reason instanceof UpstreamFailure) this.#finish({ kind: 'failed', error: reason });
      else this.#finish({ kind: 'refused', status: this.#status, headers: this.#headers, text: '' });
      return;
    }
    this.#fail(reason);
  }

  relay<Event>(decoding: FrameDecoding<Event>, limits: SseLimits, secrets: readonly string[], sink: EventSink<Event>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (this.#failure) return reject(this.#failure);
      this.#resolve = resolve;
      this.#reject = reject;
      this.#sink = sink as EventSink<never>;
      try {
        this.#decoder = decoding(limits, secrets, (event) => this.#deliver(event as never));
      } catch (error) {
        return this.#stop(error as Error);
      }
      const early = this.#early;
      this.#early = undefined;
      for (const chunk of early ?? []) this.#feed(chunk);
      if (this.#ended) this.#end();
      else if (early && !this.#waiting && !this.#over) this.#controller?.resume();
    });
  }

  destroy(): void {
    this.#stop(new undiciErrors.RequestAbortedError());
  }

  /** The deadline passed (see `expire`). */
  expired(): void {
    this.#stop(deadlineExceeded(this.deadlineMs));
  }

  #feed(chunk: Buffer): void {
    try {
      this.#decoder!.feed(chunk);
    } catch (error) {
      this.#stop(error as Error);
    }
  }

  #end(): void {
    try {
      this.#decoder!.end();
    } catch (error) {
      return this.#stop(error as Error);
    }
    if (this.#done) return;
    this.#done = true;
    this.#release();
    this.#resolve!();
  }

  #deliver(event: never): void {
    if (this.#done) return;
    if (this.#sink!.push(event) || this.#waiting) return;
    // The client's buffer is full: undici stops reading this answer until the client read it.
    this.#waiting = true;
    this.#controller?.pause();
    this.#sink!.drained().then(
      () => {
        this.#waiting = false;
        if (!this.#over) this.#controller?.resume();
      },
      (error: Error) => this.#stop(error),
    );
  }

  #refused(): void {
    const chunks = this.#errorChunks!;
    const text = Buffer.concat(chunks).subarray(0, this.maxErrorBytes).toString('utf8');
    this.#finish({ kind: 'refused', status: this.#status, headers: this.#headers, text });
  }

  /** The head was an error or never came: the caller is told, and the attempt is over. */
  #finish(head: StreamHead): void {
    this.#done = true;
    this.#errorChunks = undefined;
    this.#release();
    this.#tell(head);
  }

  #tell(head: StreamHead): void {
    const report = this.#report;
    this.#report = undefined;
    report?.(head);
  }

  /** The relay stops here: the caller hears why now, and the request (queued, waiting or reading) is cut. */
  #stop(error: Error): void {
    this.#fail(error);
    if (this.#over) return;
    this.#over = true;
    if (this.#controller) this.#controller.abort(error);
  }

  #fail(error: Error): void {
    if (this.#done) return;
    this.#failure = error;
    // Before the head, the caller is waiting for it; after, the relay (if it started) is.
    if (this.#report) return this.#finish({ kind: 'failed', error });
    this.#done = true;
    this.#release();
    this.#reject?.(error);
  }

  #release(): void {
    clearTimeout(this.#timer);
    this.signal.off('abort', this.#abort);
    this.#decoder = undefined;
    this.#sink = undefined;
    this.#early = undefined;
  }

  // Before the request is on a socket there is no controller yet: onRequestStart aborts it then.
  readonly #abort = (): void => {
    this.#stop(new undiciErrors.RequestAbortedError());
  };
}

function expire(answer: StreamedAnswer): void {
  answer.expired();
}
