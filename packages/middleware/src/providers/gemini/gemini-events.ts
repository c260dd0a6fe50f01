import { z } from 'zod';
import { isObject, type EventShape } from '../decode-event.js';
import type { GeminiResponse } from './gemini-wire.js';

/*
 * A `streamGenerateContent?alt=sse` event: the envelope fields the translator branches on (candidates, their
 * index, content parts and finishReason; usageMetadata and promptFeedback as objects). The parts keep
 * Gemini's own union type (gemini-wire.ts): each is read by the field it has, so any object is one.
 */
const geminiCandidate = z.looseObject({
  index: z.number().optional(),
  finishReason: z.string().optional(),
  content: z.looseObject({ parts: z.array(z.looseObject({})).optional() }).optional(),
});
const geminiEventSchema = z.looseObject({
  candidates: z.array(geminiCandidate).optional(),
  usageMetadata: z.looseObject({}).optional(),
  promptFeedback: z.looseObject({ blockReason: z.string().optional() }).optional(),
});

function isCandidate(candidate: unknown): boolean {
  if (!isObject(candidate)) return false;
  if (candidate.index !== undefined && typeof candidate.index !== 'number') return false;
  if (candidate.finishReason !== undefined && typeof candidate.finishReason !== 'string') return false;
  const content = candidate.content;
  if (content === undefined) return true;
  return isObject(content) && (content.parts === undefined || (Array.isArray(content.parts) && content.parts.every(isObject)));
}

function isPromptFeedback(feedback: unknown): boolean {
  return feedback === undefined || (isObject(feedback) && (feedback.blockReason === undefined || typeof feedback.blockReason === 'string'));
}

export const geminiStreamEvent: EventShape<GeminiResponse> = {
  name: 'Gemini',
  // The schema checks what the guard checks; the parts are typed by gemini-wire.ts (see above).
  schema: geminiEventSchema as z.ZodType<unknown> as z.ZodType<GeminiResponse>,
  is: (value): value is GeminiResponse =>
    isObject(value) &&
    (value.candidates === undefined || (Array.isArray(value.candidates) && value.candidates.every(isCandidate))) &&
    (value.usageMetadata === undefined || isObject(value.usageMetadata)) &&
    isPromptFeedback(value.promptFeedback),
};

export { geminiEventSchema };
