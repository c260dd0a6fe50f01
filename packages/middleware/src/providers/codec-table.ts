import type { ProviderConfig } from '../config/index.js';
import { ServiceError } from '../errors/index.js';
import { anthropicChatCodec } from './anthropic/chat-codec.js';
import { anthropicMessagesCodec } from './anthropic/messages-codec.js';
import type { ClientProtocol, Codec } from './codec.js';
import { geminiChatCodec } from './gemini/chat-codec.js';
import { geminiEmbeddingsCodec } from './gemini/embeddings-codec.js';
import { geminiMessagesCodec } from './gemini/messages-codec.js';
import { openaiChatCodec } from './openai/chat-codec.js';
import { openaiEmbeddingsCodec } from './openai/embeddings-codec.js';
import { openaiMessagesCodec } from './openai/messages-codec.js';
import { openaiResponsesCodec } from './openai/responses-codec.js';
import { baseUrlOf } from './provider-wire.js';
import { responsesViaChat } from './responses-via-chat.js';
import { usageCheckedCodec } from './usage-checked-codec.js';

type Row = Codec | ((provider: ProviderConfig) => Codec);

const openaiResponsesViaChat = responsesViaChat(openaiChatCodec);

/** Which codec serves a client protocol on a provider kind; one row per pair. */
export const codecTable: Record<ClientProtocol, Partial<Record<ProviderConfig['kind'], Row>>> = {
  chat: { openai: openaiChatCodec, anthropic: anthropicChatCodec, gemini: geminiChatCodec },
  messages: { openai: openaiMessagesCodec, anthropic: anthropicMessagesCodec, gemini: geminiMessagesCodec },
  // OpenAI's platform speaks Responses natively; OpenAI-compatible servers (Ollama, vLLM, llama.cpp)
  // mostly do not, so they get Responses translated through chat completions like the other kinds.
  responses: {
    openai: (provider) => (speaksResponses(provider) ? openaiResponsesCodec : openaiResponsesViaChat),
    anthropic: responsesViaChat(anthropicChatCodec),
    gemini: responsesViaChat(geminiChatCodec),
  },
  embeddings: { openai: openaiEmbeddingsCodec, gemini: geminiEmbeddingsCodec },
};

/**
 * The codec for a protocol on a route. Pass the provider (not only its kind) where a row depends on
 * the deployment, as Responses does on `openai` routes.
 *
 * @example
 * codecFor('chat', 'anthropic') // anthropicChatCodec, its usage checked
 */
export function codecFor(protocol: ClientProtocol, provider: ProviderConfig['kind'] | ProviderConfig): Codec {
  const config: ProviderConfig = typeof provider === 'string' ? { kind: provider, headers: {}, timeoutMs: 0, maxRetries: 0, retryBaseMs: 0 } : provider;
  const row = codecTable[protocol][config.kind];
  if (!row) throw new ServiceError('model_not_configured', `Provider kind "${config.kind}" cannot serve ${protocol} requests`, { param: 'model' });
  // Usage is checked where it leaves the provider layer, whatever the codec (issue 15 item 2).
  return usageCheckedCodec(typeof row === 'function' ? row(config) : row);
}

/**
 * Whether the server relays `/v1/responses` natively: the provider's `responsesApi` when set, else true for
 * OpenAI itself (the default base URL or any `*.openai.com` / `*.openai.azure.com` host).
 */
export function speaksResponses(provider: ProviderConfig): boolean {
  if (provider.responsesApi !== undefined) return provider.responsesApi;
  const host = new URL(baseUrlOf(provider)).hostname;
  return host === 'api.openai.com' || host.endsWith('.openai.com') || host.endsWith('.openai.azure.com');
}
