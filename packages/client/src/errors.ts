/** What every Tollgate error carries: the HTTP facts first, the body best-effort (contract §7). */
export interface ErrorFacts {
  status: number;
  code: string | undefined;
  reason: string | undefined;
  headers: Record<string, string>;
  body: unknown;
  message: string;
}

/**
 * The base of every error the client raises. `status` 0 means no HTTP answer was received.
 *
 * @example
 * try { await tg.chat(body) } catch (e) { if (e instanceof TollgateError) console.log(e.status, e.code) }
 */
export class TollgateError extends Error {
  override name = 'TollgateError';
  readonly status: number;
  readonly code: string | undefined;
  readonly reason: string | undefined;
  readonly headers: Record<string, string>;
  readonly body: unknown;

  constructor(facts: ErrorFacts, options?: { cause?: unknown }) {
    super(facts.message, options);
    this.status = facts.status;
    this.code = facts.code;
    this.reason = facts.reason;
    this.headers = facts.headers;
    this.body = facts.body;
  }
}

export class AuthenticationError extends TollgateError {
  override name = 'AuthenticationError';
}

export class WalletEmptyError extends TollgateError {
  override name = 'WalletEmptyError';
  /** Console path for adding credit (`X-Service-Recovery-Url`). */
  get recoveryUrl(): string | undefined {
    return this.headers['x-service-recovery-url'];
  }
}

export class RateLimitedError extends TollgateError {
  override name = 'RateLimitedError';
  /** Seconds to wait (`Retry-After`), at least 1; undefined when the endpoint sent no hint (/v1/messages). */
  get retryAfter(): number | undefined {
    const seconds = Number(this.headers['retry-after']);
    return Number.isFinite(seconds) && this.headers['retry-after'] !== undefined ? Math.max(1, seconds) : undefined;
  }
}

export class AllowanceExhaustedError extends TollgateError {
  override name = 'AllowanceExhaustedError';
  /** When included tokens refill (`X-Service-Reset-At`). */
  get resetAt(): Date | undefined {
    const value = this.headers['x-service-reset-at'];
    return value ? new Date(value) : undefined;
  }
}

export class ModelNotFoundError extends TollgateError {
  override name = 'ModelNotFoundError';
}

export class ModelNotConfiguredError extends TollgateError {
  override name = 'ModelNotConfiguredError';
}

export class MaxTokensExceededError extends TollgateError {
  override name = 'MaxTokensExceededError';
}

export class ValidationError extends TollgateError {
  override name = 'ValidationError';
  /** The 422 detail list, when the body survived. */
  get detail(): { type: string; loc: (string | number)[]; msg: string; input?: unknown }[] {
    const detail = (this.body as { detail?: unknown } | undefined)?.detail;
    return Array.isArray(detail) ? detail : [];
  }
}

/** The upstream provider rejected, failed or could not be reached (relayed errors and 502). */
export class UpstreamError extends TollgateError {
  override name = 'UpstreamError';
}

export class PolicyUnavailableError extends TollgateError {
  override name = 'PolicyUnavailableError';
}

export class InternalError extends TollgateError {
  override name = 'InternalError';
}

export class SqlError extends TollgateError {
  override name = 'SqlError';
  /** The SQL endpoint's `error_code` (syntax_error, constraint_violation, statement_timeout, …). */
  get errorCode(): string | undefined {
    return (this.body as { error_code?: string } | undefined)?.error_code;
  }
}

/**
 * The connection failed or timed out after the request was sent: it may have run and been metered
 * (contract §7.3 rule 4). Not retried by default, since no idempotency key exists.
 */
export class OutcomeUnknownError extends TollgateError {
  override name = 'OutcomeUnknownError';
}

/** A stream that ended without its normal end (§6.1): the generation failed; what arrived is kept. */
export class StreamInterruptedError extends TollgateError {
  override name = 'StreamInterruptedError';
  constructor(
    facts: ErrorFacts,
    readonly partialText: string,
    options?: { cause?: unknown },
  ) {
    super(facts, options);
  }
}
