import { z } from 'zod';
import { isObject, isOptionalObject, isOptionalString, mismatchOf, type EventShape } from './decode-event.js';

/*
 * The whole (non-streamed) answers of the three client families, as providers send them: an OpenAI chat
 * completion, an Anthropic message, an OpenAI response. A 2xx of JSON that is not one (a proxy's `{"error": …}`,
 * `null`, a string) is no answer: a native relay used to pass it on as a 200 and bill it, and one whose fields
 * were of the wrong type threw inside metering (a 500). Only the fields Tollgate reads are checked (what metering
 * counts, what the translators map); the rest pass through untouched (loose objects). As with stream events
 * (upstream-events.ts), a hand-written guard runs per answer and zod only says what was wrong.
 */

const looseUsage = z.looseObject({}).nullish();

const chatToolCall = z.looseObject({ function: z.looseObject({ name: z.string().optional(), arguments: z.string().optional() }) });
const chatCompletionSchema = z.looseObject({
  choices: z
    .array(
      z.looseObject({
        message: z.looseObject({ content: z.string().nullish(), refusal: z.string().nullish(), tool_calls: z.array(chatToolCall).nullish() }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage: looseUsage,
});

/** Absent, or a string (zod's `.optional()`: null is not absent). */
function isAbsentOrString(value: unknown): boolean {
  return value === undefined || typeof value === 'string';
}

function isChatToolCalls(calls: unknown): boolean {
  if (calls === undefined || calls === null) return true;
  if (!Array.isArray(calls)) return false;
  for (const call of calls) {
    if (!isObject(call) || !isObject(call.function) || !isAbsentOrString(call.function.name) || !isAbsentOrString(call.function.arguments)) return false;
  }
  return true;
}

function isChatChoices(choices: unknown): boolean {
  if (!Array.isArray(choices) || choices.length === 0) return false;
  for (const choice of choices) {
    if (!isObject(choice) || !isOptionalString(choice.finish_reason)) return false;
    const message = choice.message;
    if (!isObject(message) || !isOptionalString(message.content) || !isOptionalString(message.refusal) || !isChatToolCalls(message.tool_calls)) return false;
  }
  return true;
}

/** An OpenAI chat completion: at least one choice, each with its message. */
export const openaiChatCompletion: EventShape<z.infer<typeof chatCompletionSchema>> = {
  name: 'chat completion',
  schema: chatCompletionSchema,
  is: (value): value is z.infer<typeof chatCompletionSchema> => isObject(value) && isChatChoices(value.choices) && isOptionalObject(value.usage),
};

const messageSchema = z.looseObject({
  content: z.array(z.looseObject({ type: z.string(), text: z.string().optional(), thinking: z.string().optional() })),
  stop_reason: z.string().nullish(),
  usage: looseUsage,
});

function isMessageContent(content: unknown): boolean {
  if (!Array.isArray(content)) return false;
  for (const block of content) if (!isObject(block) || typeof block.type !== 'string' || !isAbsentOrString(block.text) || !isAbsentOrString(block.thinking)) return false;
  return true;
}

/** An Anthropic message: its content a list of typed blocks. */
export const anthropicMessage: EventShape<z.infer<typeof messageSchema>> = {
  name: 'message',
  schema: messageSchema,
  is: (value): value is z.infer<typeof messageSchema> => isObject(value) && isMessageContent(value.content) && isOptionalString(value.stop_reason) && isOptionalObject(value.usage),
};

const responseSchema = z.looseObject({
  output: z.array(z.looseObject({ content: z.array(z.looseObject({ text: z.string().optional() })).nullish(), arguments: z.string().optional() })),
  usage: looseUsage,
});

function isResponseOutput(output: unknown): boolean {
  if (!Array.isArray(output)) return false;
  for (const item of output) {
    if (!isObject(item) || !isAbsentOrString(item.arguments)) return false;
    const content = item.content;
    if (content === undefined || content === null) continue;
    if (!Array.isArray(content)) return false;
    for (const part of content) if (!isObject(part) || !isAbsentOrString(part.text)) return false;
  }
  return true;
}

/** An OpenAI response: its output a list of items. */
export const openaiResponse: EventShape<z.infer<typeof responseSchema>> = {
  name: 'response',
  schema: responseSchema,
  is: (value): value is z.infer<typeof responseSchema> => isObject(value) && isResponseOutput(value.output) && isOptionalObject(value.usage),
};

/**
 * Throws, naming what is wrong, when a provider's 2xx JSON is not its family's answer; usageCheckedCodec makes
 * that an unreadable answer (retried, failed over, then 502, nothing billed; README "Retries upstream").
 *
 * @example
 * checkAnswer(upstream, openaiChatCompletion);
 */
export function checkAnswer(value: unknown, shape: EventShape<unknown>): void {
  if (!shape.is(value)) throw new Error(`not a ${shape.name} (${mismatchOf(value, shape)})`);
}
