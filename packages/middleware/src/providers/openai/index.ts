import type { ProviderConfig } from '../provider-settings.js';
import { baseUrlWithDefault, errorFields, jsonRequest, sseFraming } from '../json-request.js';
import type { ChatOutputLimitField, ProviderDefinition } from '../provider-definition.js';
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
  chatOutputLimitField,
};

/**
 * Whether the server relays `/v1/responses` natively: the provider's `responsesApi` when set, else true for
 * OpenAI itself (the default base URL or any `*.openai.com` / `*.openai.azure.com` host).
 */
export function speaksResponses(provider: ProviderConfig): boolean {
  return provider.responsesApi ?? isOpenAiItself(provider);
}

/**
 * The provider's `outputLimitField` when set, else `max_completion_tokens` for OpenAI itself (its reasoning models
 * refuse `max_tokens`, which it deprecated) and `max_tokens` for other OpenAI-compatible servers, which all know it.
 */
export function chatOutputLimitField(provider: ProviderConfig): ChatOutputLimitField {
  return provider.outputLimitField ?? (isOpenAiItself(provider) ? 'max_completion_tokens' : 'max_tokens');
}

/** The default base URL or any `*.openai.com` / `*.openai.azure.com` host. */
function isOpenAiItself(provider: ProviderConfig): boolean {
  const host = new URL(baseUrlWithDefault(provider, defaultBaseUrl)).hostname;
  return host === 'api.openai.com' || host.endsWith('.openai.com') || host.endsWith('.openai.azure.com');
}
