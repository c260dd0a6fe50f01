import type { IncomingHttpHeaders } from 'node:http';
import type { ProviderConfig } from './provider-settings.js';
import { readSseEvents } from '../upstream/index.js';
import type { PreparedRequest, StreamFraming, UpstreamRequest } from './provider-definition.js';

/** How a JSON-over-HTTPS provider authenticates and which client headers it must see. */
export interface JsonRequestShape {
  defaultBaseUrl: string;
  authHeaders(apiKey: string | undefined): Record<string, string>;
  /** Client headers relayed as they are (Anthropic's beta features); none when absent. */
  forwardedHeaders?: readonly string[];
}

// Per configured provider, which lives as long as the gateway: these were rebuilt on every call.
const fixedHeaders = new WeakMap<ProviderConfig, Readonly<Record<string, string>>>();
const targets = new WeakMap<ProviderConfig, Map<string, { origin: string; path: string }>>();

/**
 * The `prepare` of a provider that takes JSON with a static credential header: the three vendors and
 * any OpenAI-compatible server. Origin and path are parsed once per provider and path; the fixed headers
 * once per provider.
 *
 * @example
 * prepare: jsonRequest({ defaultBaseUrl: 'https://api.openai.com/v1', authHeaders: (key) => ({ authorization: `Bearer ${key}` }) })
 */
export function jsonRequest(shape: JsonRequestShape): (request: UpstreamRequest) => PreparedRequest {
  const forwarded = shape.forwardedHeaders ?? [];
  return ({ provider, path, body, clientHeaders }) => {
    const { origin, path: fullPath } = targetOf(provider, shape.defaultBaseUrl, path);
    let headers = fixedHeaders.get(provider);
    if (!headers) {
      headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...provider.headers, ...shape.authHeaders(provider.apiKey) };
      fixedHeaders.set(provider, headers);
    }
    if (forwarded.length > 0) headers = withForwarded(headers, forwarded, clientHeaders);
    return { origin, path: fullPath, headers, body: JSON.stringify(body) };
  };
}

/** The provider's base URL without a trailing slash, following each vendor SDK's convention. */
export function baseUrlWithDefault(provider: ProviderConfig, defaultBaseUrl: string): string {
  return (provider.baseUrl ?? defaultBaseUrl).replace(/\/+$/, '');
}

function targetOf(provider: ProviderConfig, defaultBaseUrl: string, path: string): { origin: string; path: string } {
  let byPath = targets.get(provider);
  if (!byPath) targets.set(provider, (byPath = new Map()));
  let target = byPath.get(path);
  if (!target) {
    const url = new URL(baseUrlWithDefault(provider, defaultBaseUrl) + path);
    target = { origin: url.origin, path: url.pathname + url.search };
    if (byPath.size >= 1_000) byPath.clear(); // Gemini's paths name the model: bounded, not fixed
    byPath.set(path, target);
  }
  return target;
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
export const sseFraming: StreamFraming = readSseEvents;

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
