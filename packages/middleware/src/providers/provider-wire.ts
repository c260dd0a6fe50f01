import type { IncomingHttpHeaders } from 'node:http';
import type { ProviderConfig } from '../config/index.js';
import type { UpstreamTarget } from '../upstream/index.js';
import { forwardAnthropicHeaders } from './anthropic/messages-codec.js';

/** How to reach one kind of provider: endpoint paths, authentication, and its error body's shape. */
export interface ProviderWire {
  defaultBaseUrl: string;
  authHeaders(apiKey: string | undefined): Record<string, string>;
  /** The provider's message and code from its error body; best-effort, the body may not be JSON. */
  parseError(body: unknown): { message?: string; code?: string };
}

type ErrorBody = { error?: { message?: unknown; code?: unknown; type?: unknown; status?: unknown } };

function errorFields(body: unknown, codeField: 'code' | 'type' | 'status'): { message?: string; code?: string } {
  const error = (body as ErrorBody | null)?.error;
  return {
    message: typeof error?.message === 'string' ? error.message : undefined,
    code: typeof error?.[codeField] === 'string' ? (error[codeField] as string) : undefined,
  };
}

/** The three wire dialects; any OpenAI-compatible server (Ollama, vLLM, llama.cpp) is `openai`. */
export const providerWires: Record<ProviderConfig['kind'], ProviderWire> = {
  openai: {
    defaultBaseUrl: 'https://api.openai.com/v1',
    authHeaders: (apiKey): Record<string, string> => (apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
    parseError: (body) => errorFields(body, 'code'),
  },
  anthropic: {
    defaultBaseUrl: 'https://api.anthropic.com',
    authHeaders: (apiKey) => ({ 'anthropic-version': '2023-06-01', ...(apiKey ? { 'x-api-key': apiKey } : {}) }),
    parseError: (body) => errorFields(body, 'type'),
  },
  gemini: {
    defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta',
    authHeaders: (apiKey): Record<string, string> => (apiKey ? { 'x-goog-api-key': apiKey } : {}),
    parseError: (body) => errorFields(body, 'status'),
  },
};

// Per configured provider, which lives as long as the gateway: these were rebuilt on every call.
const fixedHeaders = new WeakMap<ProviderConfig, Readonly<Record<string, string>>>();
const targets = new WeakMap<ProviderConfig, Map<string, UpstreamTarget>>();

/** The provider's base URL without a trailing slash, following each vendor SDK's convention. */
export function baseUrlOf(provider: ProviderConfig): string {
  return (provider.baseUrl ?? providerWires[provider.kind].defaultBaseUrl).replace(/\/+$/, '');
}

/**
 * Where a call to `path` under the provider's base URL goes, split into origin and path as undici takes
 * them: parsed once per provider and path, not joined and parsed on every call.
 */
export function upstreamTarget(provider: ProviderConfig, path: string): UpstreamTarget {
  let byPath = targets.get(provider);
  if (!byPath) targets.set(provider, (byPath = new Map()));
  let target = byPath.get(path);
  if (!target) {
    const url = new URL(baseUrlOf(provider) + path);
    target = { origin: url.origin, path: url.pathname + url.search };
    if (byPath.size >= 1_000) byPath.clear(); // Gemini's paths name the model: bounded, not fixed
    byPath.set(path, target);
  }
  return target;
}

/**
 * The headers of a call to a provider: JSON in, JSON or SSE out, the configured extras, the credentials;
 * on Anthropic also the client headers it must see (`anthropic-beta`).
 */
export function upstreamHeaders(provider: ProviderConfig, clientHeaders: IncomingHttpHeaders): Readonly<Record<string, string>> {
  let headers = fixedHeaders.get(provider);
  if (!headers) {
    headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...provider.headers, ...providerWires[provider.kind].authHeaders(provider.apiKey) };
    fixedHeaders.set(provider, headers);
  }
  if (provider.kind !== 'anthropic') return headers;
  const forwarded = forwardAnthropicHeaders(clientHeaders);
  return Object.keys(forwarded).length === 0 ? headers : { ...headers, ...forwarded };
}
