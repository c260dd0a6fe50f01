import { keeps, unsupported, type ParamTable } from '../adapt/index.js';
import { ChatToMessagesStream, chatCanTakeOutputConfig, chatCanTakeOutputFormat, chatToMessagesResponse, messagesToChatRequest, responseFormatFromMessages, type MessagesRequest } from '../translate/index.js';
import type { Codec } from './codec.js';
import { viaChat } from './via-chat.js';

/** Messages features that have no chat equivalent; a translated route cannot take them (contract §4.3 rule 1). */
const messagesOnly: ParamTable = {
  thinking: unsupported,
  service_tier: unsupported,
};

/**
 * A Messages client on a route that is not Anthropic's: Messages → chat → the route's chat adapter, and its
 * chat answer or chat chunks → Messages. One wrapper serves every provider kind, so the per-provider
 * knowledge stays in the chat adapters.
 *
 * @example
 * messagesViaChat(geminiProvider.chat).request({ model: 'a', max_tokens: 9, messages }, target, {})
 */
export function messagesViaChat(chat: Codec): Codec {
  return viaChat<MessagesRequest>(chat, {
    params: {
      ...messagesOnly,
      // Anthropic's structured output, carried as chat's response_format (messages-to-chat-request.ts): kept
      // only when the chat route can enforce that response_format (Bedrock's cannot), else dropped and reported.
      output_config: { expressible: (config) => chatCanTakeOutputConfig(config) && responseFormatKeptBy(chat, { output_config: config }) },
      output_format: { expressible: (format) => chatCanTakeOutputFormat(format) && responseFormatKeptBy(chat, { output_format: format }) },
      // Same names in both protocols, so the chat adapter's ranges apply; `top_k` only where chat has it (Gemini's topK).
      ...(chat.params.temperature ? { temperature: chat.params.temperature } : {}),
      ...(chat.params.top_p ? { top_p: chat.params.top_p } : {}),
      top_k: chat.params.top_k ?? unsupported,
      // `metadata.user_id` becomes chat's `user`: where the chat route cannot take `user` (Gemini, Bedrock), the client's
      // metadata never reaches the provider, so it is dropped and reported (contract §4.3 rule 1).
      ...(chat.params.user ? { metadata: chat.params.user } : {}),
    },
    outputLimitFields: ['max_tokens'],
    toChat: messagesToChatRequest,
    fromChat: (completion, alias) => chatToMessagesResponse(completion, alias),
    encoder: (alias, _clientBody, promptTokens) => new ChatToMessagesStream(alias, { promptTokens }),
  });
}

/** Whether the chat route keeps the response_format a messages request's structured output becomes (none: nothing to keep). */
function responseFormatKeptBy(chat: Codec, request: Record<string, unknown>): boolean {
  const responseFormat = responseFormatFromMessages(request);
  return responseFormat === undefined || keeps(chat.params.response_format, responseFormat);
}
