import type { IncomingHttpHeaders } from 'node:http';
import type { ProviderConfig } from './provider-settings.js';
import { sseDecoding } from '../upstream/index.js';
import type { PrepareCall, StreamFraming } from './provider-definition.js';

/** How a JSON-over-HTTPS provider authenticates and which client headers it must see. */
export interface JsonRequestShape {
  defaultBaseUrl: string;
  authHeaders(apiKey: string | undefined): Record<string, string>;
  /** Client headers relayed as they are (Anthropic's beta features); none when absent. */
  forwardedHeaders?: readonly string[];
}

/**
 * The `prepare` of a provider that takes JSON with a static credential header: the three vendors and
 * any OpenAI-compatible server. Origin, path and the fixed headers are built once per provider and path,
 * when the route plans are built (routing/route-plans.ts); a call then only serializes its body.
 *
 * @example
 * prepare: jsonRequest({ defaultBaseUrl: 'https://api.openai.com/v1', authHeaders: (key) => ({ authorization: `Bearer ${key}` }) })
 */
export function jsonRequest(shape: JsonRequestShape): (provider: ProviderConfig, path: string) => PrepareCall {
  const forwarded = shape.forwardedHeaders ?? [];
  return (provider, path) => {
    const url = new URL(baseUrlWithDefault(provider, shape.defaultBaseUrl) + path);
    const origin = url.origin;
    const fullPath = url.pathname + url.search;
    const headers: Readonly<Record<string, string>> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...provider.headers, ...shape.authHeaders(provider.apiKey) };
    if (forwarded.length === 0) return (body) => ({ origin, path: fullPath, headers, body: JSON.stringify(body) });
    return (body, clientHeaders) => ({ origin, path: fullPath, headers: withForwarded(headers, forwarded, clientHeaders), body: JSON.stringify(body) });
  };
}

/** The provider's base URL without a trailing slash, following each vendor SDK's convention. */
export function baseUrlWithDefault(provider: ProviderConfig, defaultBaseUrl: string): string {
  return (provider.baseUrl ?? defaultBaseUrl).replace(/\/+$/, '');
}

/** The shared fixed headers, or a copy with the forwarded client headers when the client sent any. */
function withForwarded(headers: Readonly<Record<string, string>>, names: readonly string[], clientHeaders: IncomingHttpHeaders): Readonly<Record<string, string>> {
  let copy: Record<string, string> | undefined;
  for (const name of names) {
    const value = clientHeaders[name];
    if (typeof value === 'string') (copy ??= Object.assign({}, headers))[name] = value;
  }
  return copy ?? headers;
}

/** Server-sent events: the framing of the three vendors' streams. */
export const sseFraming: StreamFraming = sseDecoding;

type ErrorBody = { error?: { message?: unknown; code?: unknown; type?: unknown; status?: unknown } };

/** `{error: {message, <codeField>}}`, the error body of all three vendors with the code under another name. */
export function errorFields(codeField: 'code' | 'type' | 'status'): (body: unknown) => { message?: string; code?: string } {
  return (body) => {
    const error = (body as ErrorBody | null)?.error;
    return {
      message: typeof error?.message === 'string' ? error.message : undefined,
      code: typeof error?.[codeField] === 'string' ? (error[codeField] as string) : undefined,
    };
  };
}
