/**
 * The normal end of a stream in each endpoint family (contract §6.1), defined once for both sides: the
 * server relays or translates a stream to its normal end only when upstream ended it so, and
 * @tollgate/client raises StreamInterruptedError on any other end. This file is the same, byte for byte,
 * in packages/middleware/src/translate and packages/client/src (test/client/stream-ends.test.ts pins it),
 * because the client must not load the middleware: keep it free of imports.
 *
 * @example
 * endsResponsesStream({ type: 'response.incomplete' }) // true: cut by max_output_tokens, yet finished
 */

/** The event types that end a typed event stream normally. */
export const normalEndEvents = {
  /** `/v1/messages`: `message_stop` after the `message_delta` that carries `stop_reason`. */
  messages: ['message_stop'],
  /** `/v1/responses`: `response.incomplete` (max_output_tokens, content filter) is a finished response too; `response.failed` is not. */
  responses: ['response.completed', 'response.incomplete'],
} as const;

/** OpenAI chat: a chunk in which a choice carries a `finish_reason`. */
export function endsChatStream(chunk: { choices?: readonly { finish_reason?: string | null }[] | null }): boolean {
  const choices = chunk.choices;
  if (!choices) return false;
  for (const choice of choices) if (choice.finish_reason) return true;
  return false;
}

/** `/v1/messages`: the event that closes a finished message. */
export function endsMessagesStream(event: { type?: unknown }): boolean {
  return (normalEndEvents.messages as readonly unknown[]).includes(event.type);
}

/** `/v1/responses`: the events that close a finished response. */
export function endsResponsesStream(event: { type?: unknown }): boolean {
  return (normalEndEvents.responses as readonly unknown[]).includes(event.type);
}
