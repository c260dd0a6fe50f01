/**
 * Every error Tollgate answers, as one table: status, stable code, the `X-Service-Reason` value and the
 * `type` each envelope family shows. Contract §7.1 is the source; rows are looked up by name, so no
 * status or code is spelled anywhere else.
 *
 * @example
 * throw new ServiceError('model_not_found', `The model 'gpt-5' does not exist`, { param: 'model' });
 */
export const errorCatalog = {
  // contract §5: 401 carries no code and is never parsed by clients.
  unauthorized: { status: 401, code: null, reason: null, openaiType: 'authentication_error', anthropicType: 'authentication_error', retry: false },
  forbidden_scope: { status: 401, code: null, reason: null, openaiType: 'authentication_error', anthropicType: 'authentication_error', retry: false },
  validation_failed: { status: 422, code: null, reason: null, openaiType: 'invalid_request_error', anthropicType: 'invalid_request_error', retry: false },
  invalid_request: { status: 400, code: null, reason: null, openaiType: 'invalid_request_error', anthropicType: 'invalid_request_error', retry: false },
  // Not in contract §7.1: a body that did not arrive within bodyTimeoutMs (issue 15 item 6).
  body_timeout: { status: 408, code: 'request_timeout', reason: null, openaiType: 'invalid_request_error', anthropicType: 'invalid_request_error', retry: true },
  request_too_large: { status: 413, code: 'request_too_large', reason: null, openaiType: 'invalid_request_error', anthropicType: 'request_too_large', retry: false },
  method_not_allowed: { status: 405, code: 'method_not_allowed', reason: null, openaiType: 'invalid_request_error', anthropicType: 'invalid_request_error', retry: false },
  model_not_found: { status: 404, code: 'model_not_found', reason: 'unknown_model', openaiType: 'invalid_request_error', anthropicType: 'not_found_error', retry: false },
  model_not_configured: { status: 400, code: 'model_not_configured', reason: null, openaiType: 'invalid_request_error', anthropicType: 'invalid_request_error', retry: false },
  max_tokens_exceeded: { status: 400, code: 'max_tokens_exceeded', reason: null, openaiType: 'invalid_request_error', anthropicType: 'invalid_request_error', retry: false },
  wallet_empty: { status: 402, code: 'wallet_empty', reason: 'wallet_empty', openaiType: 'insufficient_quota', anthropicType: 'billing_error', retry: false },
  rate_limited: { status: 429, code: 'rate_limited', reason: 'rate_limited', openaiType: 'rate_limit_error', anthropicType: 'rate_limit_error', retry: true },
  included_allowance_exhausted: { status: 429, code: 'included_allowance_exhausted', reason: 'included_allowance_exhausted', openaiType: 'insufficient_quota', anthropicType: 'rate_limit_error', retry: false },
  policy_unavailable: { status: 503, code: 'policy_unavailable', reason: 'policy_unavailable', openaiType: 'service_unavailable', anthropicType: 'api_error', retry: true },
  // Relayed upstream failures: the status is the provider's, set per instance (contract §2.3).
  upstream_error: { status: 502, code: null, reason: null, openaiType: 'api_error', anthropicType: 'api_error', retry: 'by-status' },
  upstream_unreachable: { status: 502, code: null, reason: null, openaiType: 'api_error', anthropicType: 'api_error', retry: true },
  // Relay limits (README "Relay limits"): the provider's answer was too large or did not finish in time;
  // another attempt would cost as much again, so clients are told not to retry.
  upstream_answer_too_large: { status: 502, code: 'upstream_answer_too_large', reason: null, openaiType: 'api_error', anthropicType: 'api_error', retry: false },
  upstream_deadline_exceeded: { status: 502, code: 'upstream_deadline_exceeded', reason: null, openaiType: 'api_error', anthropicType: 'api_error', retry: false },
  internal: { status: 500, code: null, reason: null, openaiType: 'internal_error', anthropicType: 'api_error', retry: true },
  // SQL endpoint: what the statement itself caused (DESIGN "SQL endpoint").
  sql_error: { status: 400, code: 'sql_error', reason: null, openaiType: 'invalid_request_error', anthropicType: 'invalid_request_error', retry: 'by-status' },
  // A database whose boot failed (a corrupt file, a missing journal segment): retried with backoff.
  database_unavailable: { status: 503, code: 'database_unavailable', reason: null, openaiType: 'service_unavailable', anthropicType: 'api_error', retry: true },
  // Idempotency-Key (README "Idempotency keys"; beyond contract §7.3 rule 4): a repeat while the first runs is
  // retried (x-should-retry: true), one with another body or whose answer was not kept is not.
  idempotency_key_in_use: { status: 409, code: 'idempotency_key_in_use', reason: null, openaiType: 'invalid_request_error', anthropicType: 'invalid_request_error', retry: true },
  idempotency_key_reused: { status: 422, code: 'idempotency_key_reused', reason: null, openaiType: 'invalid_request_error', anthropicType: 'invalid_request_error', retry: false },
  idempotency_answer_not_kept: { status: 409, code: 'idempotency_answer_not_kept', reason: null, openaiType: 'invalid_request_error', anthropicType: 'invalid_request_error', retry: false },
  // The console (README "Console"): a session that may not do this (another organization, a missing or wrong CSRF token).
  forbidden: { status: 403, code: 'forbidden', reason: null, openaiType: 'permission_error', anthropicType: 'permission_error', retry: false },
} as const satisfies Record<string, CatalogEntry>;

export interface CatalogEntry {
  status: number;
  /** Stable body code; null where the contract says "none". */
  code: string | null;
  /** `X-Service-Reason` value (contract §7.2); null where none is sent. */
  reason: string | null;
  openaiType: string;
  anthropicType: string;
  /**
   * The `x-should-retry` value, which both official SDKs obey over their own status rules (contract §7.3):
   * `'by-status'` where the status is the provider's or the statement's (429, 408, 409 and 5xx retry).
   */
  retry: boolean | 'by-status';
}

export type ErrorName = keyof typeof errorCatalog;
