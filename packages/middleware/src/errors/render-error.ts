import { errorCatalog } from './error-catalog.js';
import type { ServiceError } from './service-error.js';

/** The envelope families of contract §2.3, plus the SQL endpoint's own. */
export type ErrorFamily = 'openai' | 'embeddings' | 'anthropic' | 'sql';

export interface RenderedError {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export interface RenderOptions {
  /** DESIGN: `/v1/messages` errors carry no §7.2 headers unless this switch is on. */
  anthropicDenialHeaders?: boolean;
}

/**
 * Renders a ServiceError into the exact envelope and headers of the endpoint family (contract §2.3, §7.2).
 * This is the only place an error body is built.
 *
 * @example
 * const { status, headers, body } = renderError(err, 'anthropic');
 */
export function renderError(error: ServiceError, family: ErrorFamily, options: RenderOptions = {}): RenderedError {
  if (error.kind === 'unauthorized' || error.kind === 'forbidden_scope') {
    // contract §5 rule 3 / shape 4: a small JSON object with a detail field, no code.
    return { status: 401, headers: { 'x-should-retry': 'false', 'www-authenticate': 'Bearer realm="tollgate"' }, body: { detail: error.message } };
  }
  // x-should-retry is not a §7.2 denial header: it goes on every family, /v1/messages included, where it is
  // the only signal that stops the Anthropic SDK retrying an exhausted allowance (contract §7.3 rule 5).
  const headers = family === 'anthropic' && !options.anthropicDenialHeaders ? {} : denialHeaders(error);
  headers['x-should-retry'] = shouldRetry(error) ? 'true' : 'false';
  return { status: error.status, headers, body: renderBody(error, family) };
}

/**
 * Whether a client may send the same request again (contract §7.3): rules 2–3 say never for an exhausted
 * allowance, 401, 402, 404, 422 and a 400 the request caused; rule 1 says yes for rate_limited and 5xx.
 * A relayed status decides for itself, as the SDKs' own rules would (408, 409, 429 and 5xx retry).
 */
export function shouldRetry(error: ServiceError): boolean {
  const { retry } = errorCatalog[error.kind];
  if (retry !== 'by-status') return retry;
  const { status } = error;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

function renderBody(error: ServiceError, family: ErrorFamily): unknown {
  const entry = errorCatalog[error.kind];
  const message = error.expose ? error.message : 'Internal server error';
  const { detail, param, upstreamBody } = error.options;

  if (family === 'anthropic') {
    return { type: 'error', error: { type: entry.anthropicType, message: anthropicMessage(error, message) } };
  }
  if (family === 'sql') {
    if (error.kind === 'validation_failed' || error.kind === 'internal') return { detail: detail ?? message };
    return { type: 'error', error_code: error.code ?? error.kind, error_message: message, context: error.options.context ?? {} };
  }
  // contract §2.3 exceptions: embeddings relay the provider's body and answer internal errors as an error object.
  if (family === 'embeddings' && error.kind === 'upstream_error' && upstreamBody !== undefined) return upstreamBody;
  if (family === 'embeddings' && error.kind === 'internal') {
    return { error: { message, type: 'internal_error', param: null, code: null } };
  }
  if (error.kind === 'validation_failed' || error.kind === 'internal' || detail !== undefined) {
    return { detail: detail ?? message };
  }
  return { error: { message, type: entry.openaiType, param: param ?? null, code: error.code } };
}

/** The Anthropic envelope has no code or detail list, so fold a validation list into the message. */
function anthropicMessage(error: ServiceError, message: string): string {
  const { detail } = error.options;
  if (!Array.isArray(detail)) return message;
  return detail.map((item) => `${item.loc.join('.')}: ${item.msg}`).join('; ');
}

function denialHeaders(error: ServiceError): Record<string, string> {
  const headers: Record<string, string> = {};
  if (error.reason) headers['x-service-reason'] = error.reason;
  const { retryAfterSeconds, resetAt, recoveryUrl } = error.options;
  if (error.kind === 'rate_limited') headers['retry-after'] = String(Math.max(1, Math.ceil(retryAfterSeconds ?? 1)));
  if (error.kind === 'included_allowance_exhausted' && resetAt) headers['x-service-reset-at'] = resetAt.toISOString();
  if (error.kind === 'wallet_empty' && recoveryUrl) headers['x-service-recovery-url'] = recoveryUrl;
  return headers;
}
