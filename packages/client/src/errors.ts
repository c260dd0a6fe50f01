import { retryAfterSeconds } from './retry-after.js';

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

/**
 * An error class that adds nothing to TollgateError but its name: the kinds a caller tells apart with
 * `instanceof`. One factory instead of a class block each (issue 19: no block written twice).
 */
function namedError<Name extends string>(name: Name) {
  const NamedError = class extends TollgateError {
    override name: string = name;
  };
  // The class's own name too (stack traces, util.inspect), as a class declaration would have it.
  Object.defineProperty(NamedError, 'name', { value: name });
  return NamedError;
}

export const AuthenticationError = namedError('AuthenticationError'); export type AuthenticationError = InstanceType<typeof AuthenticationError>;
export const ModelNotFoundError = namedError('ModelNotFoundError'); export type ModelNotFoundError = InstanceType<typeof ModelNotFoundError>;
export const ModelNotConfiguredError = namedError('ModelNotConfiguredError'); export type ModelNotConfiguredError = InstanceType<typeof ModelNotConfiguredError>;
export const MaxTokensExceededError = namedError('MaxTokensExceededError'); export type MaxTokensExceededError = InstanceType<typeof MaxTokensExceededError>;
/** The upstream provider rejected, failed or could not be reached (relayed errors and 502). */
export const UpstreamError = namedError('UpstreamError'); export type UpstreamError = InstanceType<typeof UpstreamError>;
export const PolicyUnavailableError = namedError('PolicyUnavailableError'); export type PolicyUnavailableError = InstanceType<typeof PolicyUnavailableError>;
export const InternalError = namedError('InternalError'); export type InternalError = InstanceType<typeof InternalError>;
/**
 * The connection failed or timed out after the request was sent: it may have run and been metered
 * (contract §7.3 rule 4). Not retried by default, since no idempotency key exists.
 */
export const OutcomeUnknownError = namedError('OutcomeUnknownError'); export type OutcomeUnknownError = InstanceType<typeof OutcomeUnknownError>;

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
    const seconds = retryAfterSeconds(this.headers['retry-after']);
    return seconds !== undefined ? Math.max(1, seconds) : undefined;
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

export class ValidationError extends TollgateError {
  override name = 'ValidationError';
  /** The 422 detail list, when the body survived. */
  get detail(): { type: string; loc: (string | number)[]; msg: string; input?: unknown }[] {
    const detail = (this.body as { detail?: unknown } | undefined)?.detail;
    return Array.isArray(detail) ? detail : [];
  }
}

export class SqlError extends TollgateError {
  override name = 'SqlError';
  /** The SQL endpoint's `error_code` (syntax_error, constraint_violation, statement_timeout, …). */
  get errorCode(): string | undefined {
    return (this.body as { error_code?: string } | undefined)?.error_code;
  }
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
