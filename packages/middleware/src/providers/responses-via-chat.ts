import { keeps, unsupported, type ParamTable } from '../adapt/index.js';
import { ChatToResponsesStream, chatToResponsesResponse, responseFormatFromResponsesText, responsesToChatRequest, type ChatChunk, type ChatCompletion, type ResponsesRequest } from '../translate/index.js';
import { IncompleteStream, type ClientEvent, type Codec, type RouteTarget, type SeenUsage, type StreamTranslator } from './codec.js';

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
 * codecTable.responses.anthropic = responsesViaChat(anthropicChatCodec);
 */
export function responsesViaChat(chat: Codec): Codec {
  const params: ParamTable = {
    ...responsesOnly,
    ...Object.fromEntries(sharedNames.flatMap((name) => (chat.params[name] ? [[name, chat.params[name]]] : []))),
    // `text.format` becomes chat's `response_format`: kept exactly when the chat route can enforce that
    // (contract §4.3 rule 1), judged before the body is translated, so the header names what the client sent.
    text: { expressible: textFormatKeptBy(chat) },
  };
  return {
    params,
    outputLimitFields: ['max_output_tokens'],
    upstreamPath: (target, stream) => chat.upstreamPath(target, stream),
    request: (body, target, headers) => chat.request(responsesToChatRequest(body as ResponsesRequest), target, headers),
    response(upstream, target, clientBody) {
      // The chat codec reads the chat request it answers (structured output is unwrapped from it).
      const chatBody = clientBody ? responsesToChatRequest(clientBody as ResponsesRequest) : undefined;
      const { body, usage } = chat.response(upstream, target, chatBody);
      return { body: chatToResponsesResponse(body as ChatCompletion, target.alias, clientBody), usage };
    },
    stream: (target, clientBody) => new ChatToResponsesTranslator(chat, target, clientBody),
  };
}

function textFormatKeptBy(chat: Codec): (text: unknown) => boolean {
  return (text) => {
    const responseFormat = responseFormatFromResponsesText(text);
    return responseFormat === undefined || keeps(chat.params.response_format, responseFormat);
  };
}

class ChatToResponsesTranslator implements StreamTranslator {
  readonly #chat: StreamTranslator;
  readonly #responses: ChatToResponsesStream;

  constructor(chat: Codec, target: RouteTarget, clientBody: Record<string, unknown>) {
    // The chat translator is asked for the usage chunk: response.completed carries usage.
    this.#chat = chat.stream(target, { ...responsesToChatRequest(clientBody as ResponsesRequest), stream_options: { include_usage: true } });
    this.#responses = new ChatToResponsesStream(target.alias, clientBody);
  }

  push(event: { event?: string; data: string }): ClientEvent[] {
    return this.#translate(this.#chat.push(event));
  }

  end(): ClientEvent[] {
    const closing = this.#translate(this.#chat.end());
    if (!this.#responses.finished) throw new IncompleteStream('upstream stream ended without a finish_reason');
    return [...closing, ...this.#responses.finish().map((e) => ({ event: e.type, data: e }))];
  }

  usage(): SeenUsage {
    return this.#chat.usage();
  }

  text(): string {
    return this.#chat.text();
  }

  #translate(events: ClientEvent[]): ClientEvent[] {
    return events.flatMap((e) => (e.data === '[DONE]' ? [] : this.#responses.push(e.data as ChatChunk))).map((e) => ({ event: e.type, data: e }));
  }
}
