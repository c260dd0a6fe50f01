import {
  AllowanceExhaustedError,
  AuthenticationError,
  InternalError,
  MaxTokensExceededError,
  ModelNotConfiguredError,
  ModelNotFoundError,
  PolicyUnavailableError,
  RateLimitedError,
  SqlError,
  TollgateError,
  UpstreamError,
  ValidationError,
  WalletEmptyError,
  type ErrorFacts,
} from './errors.js';

type ErrorClass = new (facts: ErrorFacts) => TollgateError;

/** One row: when it matches (status, then reason header, then body code or type), which error it is. */
interface Rule {
  status?: number;
  reason?: string;
  code?: string;
  bodyType?: string;
  error: ErrorClass;
}

/**
 * The contract's catalog (§7.1) as a table, most specific first. Headers come before body codes
 * because they survive an intermediary rewriting the body (§7.2); the body is only a fallback.
 */
const rules: Rule[] = [
  { status: 429, reason: 'included_allowance_exhausted', error: AllowanceExhaustedError },
  { status: 429, code: 'included_allowance_exhausted', error: AllowanceExhaustedError },
  { status: 429, error: RateLimitedError },
  { status: 503, reason: 'policy_unavailable', error: PolicyUnavailableError },
  { status: 503, code: 'policy_unavailable', error: PolicyUnavailableError },
  // A provider's own 401/402/404/422, relayed (§7.1 "4xx relayed", type api_error): not the caller's key, wallet or alias.
  { bodyType: 'api_error', error: UpstreamError },
  { status: 401, error: AuthenticationError },
  { status: 402, error: WalletEmptyError },
  { status: 404, error: ModelNotFoundError },
  { status: 400, code: 'max_tokens_exceeded', error: MaxTokensExceededError },
  { status: 400, code: 'model_not_configured', error: ModelNotConfiguredError },
  { status: 422, error: ValidationError },
  { bodyType: 'sql_error', error: SqlError },
  { status: 502, error: UpstreamError },
  { status: 500, error: InternalError },
];

/**
 * Turns an HTTP error answer into a typed error. The body may be anything (an HTML page from a proxy):
 * status and headers decide first.
 *
 * @example
 * classifyError(429, { 'x-service-reason': 'included_allowance_exhausted' }, '<html>…') // AllowanceExhaustedError
 */
export function classifyError(status: number, headers: Record<string, string>, rawBody: string): TollgateError {
  const body = parseBody(rawBody);
  const facts: ErrorFacts = { status, headers, body, reason: headers['x-service-reason'], code: codeOf(body), message: messageOf(status, body, rawBody) };
  const bodyType = bodyTypeOf(body);
  const rule = rules.find(
    (r) =>
      (r.status === undefined || r.status === status) &&
      (r.reason === undefined || r.reason === facts.reason) &&
      (r.code === undefined || r.code === facts.code) &&
      (r.bodyType === undefined || r.bodyType === bodyType),
  );
  return new (rule?.error ?? TollgateError)(facts);
}

function parseBody(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function codeOf(body: unknown): string | undefined {
  const error = (body as { error?: { code?: unknown } } | undefined)?.error;
  if (typeof error?.code === 'string') return error.code;
  const sqlCode = (body as { error_code?: unknown } | undefined)?.error_code;
  return typeof sqlCode === 'string' ? sqlCode : undefined;
}

/** `api_error` for relayed upstream errors (both envelopes), `sql_error` for the SQL endpoint's shape. */
function bodyTypeOf(body: unknown): string | undefined {
  const record = body as { type?: unknown; error?: { type?: unknown }; error_code?: unknown } | undefined;
  if (record?.type === 'error' && typeof record.error_code === 'string') return 'sql_error';
  return typeof record?.error?.type === 'string' ? record.error.type : undefined;
}

function messageOf(status: number, body: unknown, raw: string): string {
  const record = body as { error?: { message?: unknown }; error_message?: unknown; detail?: unknown } | undefined;
  if (typeof record?.error?.message === 'string') return record.error.message;
  if (typeof record?.error_message === 'string') return record.error_message;
  if (typeof record?.detail === 'string') return record.detail;
  if (Array.isArray(record?.detail)) return record.detail.map((d: { msg?: string }) => d.msg).join('; ');
  return `HTTP ${status}${raw && !raw.startsWith('<') ? `: ${raw.slice(0, 200)}` : ''}`;
}
