import { tokenCount } from '../../translate/index.js';
import { errorFields, jsonRequest, sseFraming } from '../json-request.js';
import type { ProviderDefinition } from '../provider-definition.js';
import { anthropicChatCodec } from './chat-codec.js';
import { anthropicMessagesCodec } from './messages-codec.js';
import { anthropicParamsForChatClients } from './params.js';

const defaultBaseUrl = 'https://api.anthropic.com';

/** Anthropic's Messages API: messages natively (with its own token count), chat and Responses translated. */
export const anthropicProvider: ProviderDefinition<'anthropic'> = {
  kind: 'anthropic',
  defaultBaseUrl,
  prepare: jsonRequest({
    defaultBaseUrl,
    authHeaders: (apiKey) => ({ 'anthropic-version': '2023-06-01', ...(apiKey ? { 'x-api-key': apiKey } : {}) }),
    // Beta features a messages client asks for must reach Anthropic.
    forwardedHeaders: ['anthropic-beta'],
  }),
  parseError: errorFields('type'),
  framing: sseFraming,
  params: anthropicParamsForChatClients,
  chat: anthropicChatCodec,
  native: { messages: anthropicMessagesCodec },
  countTokens: {
    path: '/v1/messages/count_tokens',
    request: (body, model) => ({ ...body, model }),
    // A count that is not one (absent, "5", 1e400) is no answer: the tokenizer counts instead (usage-report.ts).
    inputTokens: (answer) => tokenCount((answer as { input_tokens?: unknown } | null)?.input_tokens),
  },
};
