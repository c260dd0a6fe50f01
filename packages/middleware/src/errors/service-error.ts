import { errorCatalog, type ErrorName } from './error-catalog.js';

/** One entry of a 422 detail list (contract §2.3 shape 3). */
export interface DetailItem {
  type: string;
  loc: (string | number)[];
  msg: string;
  input: unknown;
}

export interface ServiceErrorOptions {
  /** Overrides the catalog status (relayed upstream errors keep the provider's status). */
  status?: number;
  /** Overrides the catalog code (SQL errors carry the engine's error code). */
  code?: string;
  param?: string | null;
  /** 422 detail list, or the value of a detail body. */
  detail?: DetailItem[] | string;
  /** `Retry-After` seconds for rate_limited; rendered as an integer ≥ 1 (contract §7.2). */
  retryAfterSeconds?: number;
  /** `X-Service-Reset-At` for included_allowance_exhausted. */
  resetAt?: Date;
  /** `X-Service-Recovery-Url` for wallet_empty. */
  recoveryUrl?: string;
  /** SQL endpoint: the error body's `context` (the database the statement ran against). */
  context?: Record<string, unknown>;
  /** Provider's original body, relayed verbatim where the contract asks for it (embeddings). */
  upstreamBody?: unknown;
  /** Whether the message may be shown to the client; internal errors never expose theirs. */
  expose?: boolean;
  cause?: unknown;
}

/**
 * The one error type of Tollgate. Every failure in the pipeline becomes a ServiceError and is rendered
 * once, by `renderError`, into the envelope of the endpoint family that was called.
 *
 * @example
 * throw new ServiceError('max_tokens_exceeded', 'max_tokens must be at most 131072', { param: 'max_tokens' });
 */
export class ServiceError extends Error {
  override readonly name = 'ServiceError';
  readonly kind: ErrorName;
  readonly status: number;
  readonly code: string | null;
  readonly reason: string | null;
  readonly expose: boolean;
  readonly options: ServiceErrorOptions;

  constructor(kind: ErrorName, message: string, options: ServiceErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    const entry = errorCatalog[kind];
    this.kind = kind;
    this.status = options.status ?? entry.status;
    this.code = options.code ?? entry.code;
    this.reason = entry.reason;
    this.expose = options.expose ?? kind !== 'internal';
    this.options = options;
  }

  /** Wraps anything thrown into a ServiceError; unknown errors become `internal` and hide their message. */
  static from(error: unknown): ServiceError {
    if (error instanceof ServiceError) return error;
    return new ServiceError('internal', 'Internal server error', { cause: error, expose: false });
  }
}

/** Builds a one-item 422 error, the common case of body validation. */
export function validationError(loc: (string | number)[], msg: string, input: unknown, type = 'value_error'): ServiceError {
  return new ServiceError('validation_failed', msg, { detail: [{ type, loc, msg, input }] });
}
