import { z } from 'zod';
import { isObject, isOptionalObject, isOptionalString, type EventShape } from './decode-event.js';

/*
 * The upstream stream events of the three client families, as providers send them (OpenAI chat chunks,
 * Anthropic messages events, OpenAI Responses events): only the fields the translators branch on are
 * checked; the rest pass through untouched (loose objects). Usage objects are checked as objects only:
 * their counts are judged where usage enters metering (translate/usage-report.ts), so a bad count is
 * billed by the tokenizer rather than failing the stream.
 */

const looseUsage = z.looseObject({}).nullish();

const chatToolCallDelta = z.looseObject({ function: z.looseObject({ arguments: z.string().optional() }).optional() });
const chatChoice = z.looseObject({
  delta: z.looseObject({ content: z.string().nullish(), tool_calls: z.array(chatToolCallDelta).nullish() }).nullish(),
  finish_reason: z.string().nullish(),
});
const chatChunkSchema = z.looseObject({ choices: z.array(chatChoice).nullish(), usage: looseUsage });

/** An OpenAI chat completion chunk. */
export type ChatChunkEvent = z.infer<typeof chatChunkSchema>;

function isChatChoice(choice: unknown): boolean {
  if (!isObject(choice) || !isOptionalString(choice.finish_reason)) return false;
  const delta = choice.delta;
  if (delta === undefined || delta === null) return true;
  if (!isObject(delta) || !isOptionalString(delta.content)) return false;
  const calls = delta.tool_calls;
  if (calls === undefined || calls === null) return true;
  if (!Array.isArray(calls)) return false;
  for (const call of calls) if (!isObject(call) || (call.function !== undefined && !(isObject(call.function) && (call.function.arguments === undefined || typeof call.function.arguments === 'string')))) return false;
  return true;
}

function isChatChoices(choices: unknown): boolean {
  if (choices === undefined || choices === null) return true;
  if (!Array.isArray(choices)) return false;
  for (const choice of choices) if (!isChatChoice(choice)) return false;
  return true;
}

export const openaiChatChunk: EventShape<ChatChunkEvent> = {
  name: 'chat completion chunk',
  schema: chatChunkSchema,
  is: (value): value is ChatChunkEvent => isObject(value) && isOptionalObject(value.usage) && isChatChoices(value.choices),
};

const messagesEventSchema = z.looseObject({
  type: z.string(),
  message: z.looseObject({ usage: looseUsage }).optional(),
  delta: z.looseObject({ type: z.string().optional(), text: z.string().optional(), partial_json: z.string().optional(), thinking: z.string().optional(), stop_reason: z.string().nullish() }).optional(),
  usage: looseUsage,
  index: z.number().optional(),
});

/** An Anthropic Messages stream event. */
export type MessagesEventData = z.infer<typeof messagesEventSchema>;

function isMessagesDelta(delta: unknown): boolean {
  if (delta === undefined) return true;
  return isObject(delta) && (delta.type === undefined || typeof delta.type === 'string') && (delta.text === undefined || typeof delta.text === 'string') && (delta.partial_json === undefined || typeof delta.partial_json === 'string') && (delta.thinking === undefined || typeof delta.thinking === 'string') && isOptionalString(delta.stop_reason);
}

export const anthropicMessagesEvent: EventShape<MessagesEventData> = {
  name: 'messages',
  schema: messagesEventSchema,
  is: (value): value is MessagesEventData =>
    isObject(value) &&
    typeof value.type === 'string' &&
    (value.message === undefined || (isObject(value.message) && isOptionalObject(value.message.usage))) &&
    isMessagesDelta(value.delta) &&
    isOptionalObject(value.usage) &&
    (value.index === undefined || typeof value.index === 'number'),
};

const responsesEventSchema = z.looseObject({
  type: z.string(),
  response: z.looseObject({ usage: looseUsage }).optional(),
});

/** An OpenAI Responses stream event. */
export type ResponsesEventData = z.infer<typeof responsesEventSchema>;

export const openaiResponsesEvent: EventShape<ResponsesEventData> = {
  name: 'responses',
  schema: responsesEventSchema,
  is: (value): value is ResponsesEventData => isObject(value) && typeof value.type === 'string' && (value.response === undefined || (isObject(value.response) && isOptionalObject(value.response.usage))),
};
