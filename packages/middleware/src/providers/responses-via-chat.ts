import { keeps, unsupported, type ParamTable } from '../adapt/index.js';
import { ChatToResponsesStream, chatToResponsesResponse, responseFormatFromResponsesText, responsesToChatRequest, type ResponsesRequest } from '../translate/index.js';
import type { Codec } from './codec.js';
import { viaChat } from './via-chat.js';

/** Responses features that have no chat equivalent; a translated route cannot take them (contract §4.3 rule 1). */
const responsesOnly: ParamTable = {
  previous_response_id: unsupported,
  conversation: unsupported,
  background: unsupported,
  include: unsupported,
  reasoning: unsupported,
  truncation: unsupported,
  prompt: unsupported,
  store: unsupported,
  service_tier: unsupported,
  top_logprobs: unsupported,
  max_tool_calls: unsupported,
};

/** Request fields that keep their name from Responses to chat, so the chat codec's ranges apply to them. */
const sharedNames = ['temperature', 'top_p', 'parallel_tool_calls', 'user'];

/**
 * A Responses client on a route that speaks chat (directly or through the chat pivot): Responses →
 * chat → the route's chat codec, and its chat answer or chat chunks → Responses. One wrapper serves
 * every provider kind, so the per-provider knowledge stays in the chat codecs.
 *
 * @example
 * responsesViaChat(anthropicProvider.chat) // what codecFor('responses', 'anthropic') serves
 */
export function responsesViaChat(chat: Codec): Codec {
  return viaChat<ResponsesRequest>(chat, {
    params: {
      ...responsesOnly,
      ...Object.fromEntries(sharedNames.flatMap((name) => (chat.params[name] ? [[name, chat.params[name]]] : []))),
      // `text.format` becomes chat's `response_format`: kept exactly when the chat route can enforce that
      // (contract §4.3 rule 1), judged before the body is translated, so the header names what the client sent.
      text: { expressible: textFormatKeptBy(chat) },
    },
    outputLimitFields: ['max_output_tokens'],
    toChat: (body) => responsesToChatRequest(body),
    fromChat: chatToResponsesResponse,
    encoder: (alias, clientBody) => new ChatToResponsesStream(alias, clientBody),
  });
}

function textFormatKeptBy(chat: Codec): (text: unknown) => boolean {
  return (text) => {
    const responseFormat = responseFormatFromResponsesText(text);
    return responseFormat === undefined || keeps(chat.params.response_format, responseFormat);
  };
}
