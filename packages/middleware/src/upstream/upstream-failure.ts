/** The relay limits an upstream answer can run past: its size, or the attempt's overall deadline. */
export type RelayLimit = 'answer_size' | 'deadline';

/**
 * An upstream attempt that failed: either the provider answered an error status (with its parsed
 * message) or it could not be reached at all. Converted to a ServiceError only once, after retries
 * and failover, by the model call.
 */
export class UpstreamFailure extends Error {
  override readonly name = 'UpstreamFailure';

  constructor(
    message: string,
    readonly details: {
      /** Provider HTTP status; undefined when the provider could not be reached. */
      status?: number;
      code?: string;
      body?: unknown;
      retryAfterMs?: number;
      /** A relay limit the answer ran past (README "Relay limits"); such an attempt is not retried. */
      exceeded?: RelayLimit;
      /** The provider's own id of the answer that refused, when it sent one. */
      requestId?: string;
      cause?: unknown;
    },
  ) {
    super(message, { cause: details.cause });
  }

  get unreachable(): boolean {
    return this.details.status === undefined;
  }

  /** Contract §7.1 / DESIGN step 10: 429, 5xx, 529 and connection failures are transient. */
  get transient(): boolean {
    const { status, exceeded } = this.details;
    // Retrying an answer too large or too slow would only multiply its memory and time.
    if (exceeded) return false;
    return status === undefined || status === 429 || status >= 500;
  }
}

/** An answer larger than `relay.maxAnswerBytes` (one JSON body or one stream event) or `relay.maxStreamBytes`. */
export function answerTooLarge(what: string, limitBytes: number): UpstreamFailure {
  return new UpstreamFailure(`Upstream provider sent ${what} larger than ${limitBytes} bytes (relay limit)`, { exceeded: 'answer_size' });
}

/** An attempt still unfinished at `relay.attemptDeadlineMs`, however steadily its bytes trickled. */
export function deadlineExceeded(deadlineMs: number): UpstreamFailure {
  return new UpstreamFailure(`Upstream provider did not finish its answer within ${deadlineMs} ms (relay.attemptDeadlineMs)`, { exceeded: 'deadline' });
}
