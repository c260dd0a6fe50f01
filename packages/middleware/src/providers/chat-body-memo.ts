import type { ChatRequest } from '../translate/index.js';

/**
 * A client body's chat translation, computed once per body and upstream model: a generic wrapper needs it
 * for the request, the response and the stream of one call (and again on each retry), and the body of a
 * call does not change once adapted.
 */
export function memoizedChatBody<Body extends object>(translate: (body: Body, model: string) => ChatRequest): (body: Body, model: string) => ChatRequest {
  const translated = new WeakMap<Body, { model: string; chat: ChatRequest }>();
  return (body, model) => {
    const seen = translated.get(body);
    if (seen?.model === model) return seen.chat;
    const chat = translate(body, model);
    translated.set(body, { model, chat });
    return chat;
  };
}
