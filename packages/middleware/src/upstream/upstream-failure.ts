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
    const { status } = this.details;
    return status === undefined || status === 429 || status >= 500;
  }
}
