import { z } from 'zod';
import { isObject, type EventShape } from '../decode-event.js';

/*
 * A Gemini answer: one `generateContent` body, and each event of `streamGenerateContent?alt=sse`. The
 * schema checks every field the translators read (candidates, their index, finishReason and content
 * parts: text, thought, thoughtSignature, functionCall with its streamed partialArgs; promptFeedback;
 * responseId), and the types are inferred from it. Usage counts are read as unknown: they are judged where
 * usage enters metering (translate/usage-report.ts), so a bad count is billed by the tokenizer rather than
 * failing the stream, as for the other families (upstream-events.ts).
 */
const partialArg = z.looseObject({
  jsonPath: z.string(),
  stringValue: z.string().optional(),
  numberValue: z.number().optional(),
  boolValue: z.boolean().optional(),
  nullValue: z.unknown().optional(),
  willContinue: z.boolean().optional(),
});
const functionCall = z.looseObject({
  id: z.string().optional(),
  name: z.string().optional(),
  args: z.record(z.string(), z.unknown()).optional(),
  partialArgs: z.array(partialArg).optional(),
  willContinue: z.boolean().optional(),
});
const answerPart = z.looseObject({
  text: z.string().optional(),
  thought: z.boolean().optional(),
  thoughtSignature: z.string().optional(),
  functionCall: functionCall.optional(),
});
const candidate = z.looseObject({
  index: z.number().optional(),
  finishReason: z.string().optional(),
  content: z.looseObject({ role: z.string().optional(), parts: z.array(answerPart).optional() }).optional(),
});
/** A usage count: any value here, judged at metering (see above). */
const count = z.unknown().optional();
const usage = z.looseObject({ promptTokenCount: count, candidatesTokenCount: count, thoughtsTokenCount: count, cachedContentTokenCount: count, totalTokenCount: count });
const geminiEventSchema = z.looseObject({
  candidates: z.array(candidate).optional(),
  usageMetadata: usage.optional(),
  promptFeedback: z.looseObject({ blockReason: z.string().optional() }).optional(),
  responseId: z.string().optional(),
});

/** One Gemini answer (or stream event), as checked. */
export type GeminiResponse = z.infer<typeof geminiEventSchema>;
export type GeminiCandidate = z.infer<typeof candidate>;
export type GeminiAnswerPart = z.infer<typeof answerPart>;
/** A call; streamed calls arrive as `{name, willContinue}`, then `partialArgs`, then `{}` (no name). */
export type GeminiFunctionCall = z.infer<typeof functionCall>;
export type GeminiUsage = z.infer<typeof usage>;

const optional = (value: unknown, type: 'string' | 'number' | 'boolean') => value === undefined || typeof value === type;

function isPartialArg(arg: unknown): boolean {
  return isObject(arg) && typeof arg.jsonPath === 'string' && optional(arg.stringValue, 'string') && optional(arg.numberValue, 'number') && optional(arg.boolValue, 'boolean') && optional(arg.willContinue, 'boolean');
}

function isFunctionCall(call: unknown): boolean {
  if (call === undefined) return true;
  if (!isObject(call) || !optional(call.id, 'string') || !optional(call.name, 'string') || !optional(call.willContinue, 'boolean')) return false;
  if (call.args !== undefined && !isObject(call.args)) return false;
  return call.partialArgs === undefined || (Array.isArray(call.partialArgs) && call.partialArgs.every(isPartialArg));
}

function isAnswerPart(part: unknown): boolean {
  return isObject(part) && optional(part.text, 'string') && optional(part.thought, 'boolean') && optional(part.thoughtSignature, 'string') && isFunctionCall(part.functionCall);
}

function isCandidate(value: unknown): boolean {
  if (!isObject(value) || !optional(value.index, 'number') || !optional(value.finishReason, 'string')) return false;
  const content = value.content;
  if (content === undefined) return true;
  return isObject(content) && optional(content.role, 'string') && (content.parts === undefined || (Array.isArray(content.parts) && content.parts.every(isAnswerPart)));
}

function isPromptFeedback(feedback: unknown): boolean {
  return feedback === undefined || (isObject(feedback) && optional(feedback.blockReason, 'string'));
}

export const geminiStreamEvent: EventShape<GeminiResponse> = {
  name: 'Gemini',
  schema: geminiEventSchema,
  is: (value): value is GeminiResponse =>
    isObject(value) &&
    (value.candidates === undefined || (Array.isArray(value.candidates) && value.candidates.every(isCandidate))) &&
    (value.usageMetadata === undefined || isObject(value.usageMetadata)) &&
    isPromptFeedback(value.promptFeedback) &&
    optional(value.responseId, 'string'),
};

export { geminiEventSchema };
