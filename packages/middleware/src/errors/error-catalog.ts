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
  unauthorized: { status: 401, code: null, reason: null, openaiType: 'authentication_error', anthropicType: 'authentication_error' },
  forbidden_scope: { status: 401, code: null, reason: null, openaiType: 'authentication_error', anthropicType: 'authentication_error' },
  validation_failed: { status: 422, code: null, reason: null, openaiType: 'invalid_request_error', anthropicType: 'invalid_request_error' },
  invalid_request: { status: 400, code: null, reason: null, openaiType: 'invalid_request_error', anthropicType: 'invalid_request_error' },
  // Not in contract §7.1: a body that did not arrive within bodyTimeoutMs (issue 15 item 6).
  body_timeout: { status: 408, code: 'request_timeout', reason: null, openaiType: 'invalid_request_error', anthropicType: 'invalid_request_error' },
  request_too_large: { status: 413, code: 'request_too_large', reason: null, openaiType: 'invalid_request_error', anthropicType: 'request_too_large' },
  method_not_allowed: { status: 405, code: 'method_not_allowed', reason: null, openaiType: 'invalid_request_error', anthropicType: 'invalid_request_error' },
  model_not_found: { status: 404, code: 'model_not_found', reason: 'unknown_model', openaiType: 'invalid_request_error', anthropicType: 'not_found_error' },
  model_not_configured: { status: 400, code: 'model_not_configured', reason: null, openaiType: 'invalid_request_error', anthropicType: 'invalid_request_error' },
  max_tokens_exceeded: { status: 400, code: 'max_tokens_exceeded', reason: null, openaiType: 'invalid_request_error', anthropicType: 'invalid_request_error' },
  wallet_empty: { status: 402, code: 'wallet_empty', reason: 'wallet_empty', openaiType: 'insufficient_quota', anthropicType: 'billing_error' },
  rate_limited: { status: 429, code: 'rate_limited', reason: 'rate_limited', openaiType: 'rate_limit_error', anthropicType: 'rate_limit_error' },
  included_allowance_exhausted: { status: 429, code: 'included_allowance_exhausted', reason: 'included_allowance_exhausted', openaiType: 'insufficient_quota', anthropicType: 'rate_limit_error' },
  policy_unavailable: { status: 503, code: 'policy_unavailable', reason: 'policy_unavailable', openaiType: 'service_unavailable', anthropicType: 'api_error' },
  // Relayed upstream failures: the status is the provider's, set per instance (contract §2.3).
  upstream_error: { status: 502, code: null, reason: null, openaiType: 'api_error', anthropicType: 'api_error' },
  upstream_unreachable: { status: 502, code: null, reason: null, openaiType: 'api_error', anthropicType: 'api_error' },
  internal: { status: 500, code: null, reason: null, openaiType: 'internal_error', anthropicType: 'api_error' },
  // SQL endpoint: what the statement itself caused (DESIGN "SQL endpoint").
  sql_error: { status: 400, code: 'sql_error', reason: null, openaiType: 'invalid_request_error', anthropicType: 'invalid_request_error' },
} as const satisfies Record<string, CatalogEntry>;

export interface CatalogEntry {
  status: number;
  /** Stable body code; null where the contract says "none". */
  code: string | null;
  /** `X-Service-Reason` value (contract §7.2); null where none is sent. */
  reason: string | null;
  openaiType: string;
  anthropicType: string;
}

export type ErrorName = keyof typeof errorCatalog;
