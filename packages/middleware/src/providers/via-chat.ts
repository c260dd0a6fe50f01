import type { ParamTable } from '../adapt/index.js';
import type { ChatCompletion, ChatRequest } from '../translate/index.js';
import { memoizedChatBody } from './chat-body-memo.js';
import { ChatPivotStream, type ChatChunkEncoder } from './chat-pivot-stream.js';
import type { Codec } from './codec.js';

/** A client family served through a route's chat adapter: its own table and limit, and its conversions to and from chat. */
export interface FamilyOverChat<Body extends object> {
  params: ParamTable;
  outputLimitFields: readonly string[];
  toChat(body: Body, model: string): ChatRequest;
  fromChat(completion: ChatCompletion, alias: string, clientBody: Body | undefined): unknown;
  encoder(alias: string, clientBody: Body, promptTokens: (() => number) | undefined): ChatChunkEncoder;
}

const streamUsage = { include_usage: true };

/**
 * The generic wrapper: a client family on a route that speaks chat. Requests are translated to chat (once per
 * body and model) and handed to the chat adapter; answers and chat chunks are translated back. The chat adapter
 * is asked for the usage chunk, since the families' closing events carry usage.
 *
 * @example
 * viaChat(geminiProvider.chat, messagesFamily) // messagesViaChat
 */
export function viaChat<Body extends object>(chat: Codec, family: FamilyOverChat<Body>): Codec {
  const chatBodyOf = memoizedChatBody(family.toChat);
  return {
    params: family.params,
    outputLimitFields: family.outputLimitFields,
    upstreamPath: (target, stream) => chat.upstreamPath(target, stream),
    request: (body, target, headers) => chat.request(chatBodyOf(body as Body, target.model), target, headers),
    response(upstream, target, clientBody) {
      // The chat adapter reads the chat request it answers (structured output is unwrapped from it).
      const chatBody = clientBody ? chatBodyOf(clientBody as Body, target.model) : undefined;
      const { body, usage } = chat.response(upstream, target, chatBody);
      return { body: family.fromChat(body as ChatCompletion, target.alias, clientBody as Body | undefined), usage };
    },
    stream(target, clientBody, promptTokens) {
      const chatBody = chatBodyOf(clientBody as Body, target.model);
      chatBody.stream_options = streamUsage;
      return new ChatPivotStream(chat.stream(target, chatBody), family.encoder(target.alias, clientBody as Body, promptTokens));
    },
  };
}
