import type { ProviderConfig } from '../provider-settings.js';
import { baseUrlWithDefault, errorFields, jsonRequest, sseFraming } from '../json-request.js';
import type { ProviderDefinition } from '../provider-definition.js';
import { openaiChatCodec } from './chat-codec.js';
import { openaiEmbeddingsCodec } from './embeddings-codec.js';
import { openaiChatParams } from './params.js';
import { openaiResponsesCodec } from './responses-codec.js';

const defaultBaseUrl = 'https://api.openai.com/v1';

/**
 * OpenAI, and any OpenAI-compatible server (Ollama, vLLM, llama.cpp): chat and embeddings natively,
 * Responses natively where the server speaks it, Messages through chat.
 */
export const openaiProvider: ProviderDefinition<'openai'> = {
  kind: 'openai',
  defaultBaseUrl,
  prepare: jsonRequest({ defaultBaseUrl, authHeaders: (apiKey): Record<string, string> => (apiKey ? { authorization: `Bearer ${apiKey}` } : {}) }),
  parseError: errorFields('code'),
  framing: sseFraming,
  params: openaiChatParams,
  chat: openaiChatCodec,
  native: {
    // OpenAI-compatible servers mostly do not speak Responses: they get it translated through chat.
    responses: (provider) => (speaksResponses(provider) ? openaiResponsesCodec : undefined),
    embeddings: openaiEmbeddingsCodec,
  },
};

/**
 * Whether the server relays `/v1/responses` natively: the provider's `responsesApi` when set, else true for
 * OpenAI itself (the default base URL or any `*.openai.com` / `*.openai.azure.com` host).
 */
export function speaksResponses(provider: ProviderConfig): boolean {
  if (provider.responsesApi !== undefined) return provider.responsesApi;
  const host = new URL(baseUrlWithDefault(provider, defaultBaseUrl)).hostname;
  return host === 'api.openai.com' || host.endsWith('.openai.com') || host.endsWith('.openai.azure.com');
}
