import { errorFields, jsonRequest, sseFraming } from '../json-request.js';
import type { ProviderDefinition } from '../provider-definition.js';
import { geminiChatCodec } from './chat-codec.js';
import { geminiEmbeddingsCodec } from './embeddings-codec.js';
import { geminiParamsForChatClients } from './params.js';

const defaultBaseUrl = 'https://generativelanguage.googleapis.com/v1beta';

/** Google's Gemini API (v1beta): chat through `generateContent`, embeddings through `batchEmbedContents`. */
export const geminiProvider: ProviderDefinition<'gemini'> = {
  kind: 'gemini',
  defaultBaseUrl,
  prepare: jsonRequest({ defaultBaseUrl, authHeaders: (apiKey): Record<string, string> => (apiKey ? { 'x-goog-api-key': apiKey } : {}) }),
  parseError: errorFields('status'),
  framing: sseFraming,
  params: geminiParamsForChatClients,
  chat: geminiChatCodec,
  native: { embeddings: geminiEmbeddingsCodec },
};
