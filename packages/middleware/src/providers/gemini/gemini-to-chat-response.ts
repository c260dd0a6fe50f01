import { countOrNaN, geminiCachedTokens, sumOfCounts, type ChatCompletion, type ChatToolCall, type ChatUsage } from '../../translate/index.js';
import type { GeminiAnswerPart, GeminiCandidate, GeminiFunctionCall, GeminiResponse, GeminiUsage } from './gemini-events.js';
import { finishReasonFromGemini } from './map-finish-reason.js';

/**
 * Gemini `generateContent` answer → OpenAI chat completion naming the alias; one choice per candidate.
 * Thought summaries (`thought: true`) are not answer text; thinking tokens are billed as output, as
 * Google bills them.
 *
 * @example
 * geminiToChatResponse(recorded, 'gemini').choices[0].finish_reason // 'tool_calls' for a functionCall
 */
export function geminiToChatResponse(response: GeminiResponse, alias: string, created = Math.floor(Date.now() / 1000)): ChatCompletion {
  const candidates = response.candidates ?? [];
  const choices = candidates.length > 0 ? candidates.map((candidate, i) => toChoice(candidate, i)) : [blockedChoice()];
  return {
    id: `chatcmpl-${response.responseId ?? 'gemini'}`,
    object: 'chat.completion',
    created,
    model: alias,
    choices,
    usage: geminiChatUsage(response.usageMetadata),
  };
}

function toChoice(candidate: GeminiCandidate, i: number): ChatCompletion['choices'][number] {
  const parts = candidate.content?.parts ?? [];
  const text = answerText(parts);
  const toolCalls: ChatToolCall[] = functionCalls(parts).map((call, n) => ({ id: call.id ?? toolCallId(i, n, call.thoughtSignature), type: 'function', function: { name: call.name ?? '', arguments: JSON.stringify(call.args ?? {}) } }));
  return {
    index: candidate.index ?? i,
    message: { role: 'assistant', content: text || (toolCalls.length > 0 ? null : ''), ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}), refusal: null },
    finish_reason: finishReasonFromGemini(candidate.finishReason, toolCalls.length > 0),
    logprobs: null,
  };
}

/** A prompt Gemini blocked outright has no candidates, only `promptFeedback.blockReason`. */
function blockedChoice(): ChatCompletion['choices'][number] {
  return { index: 0, message: { role: 'assistant', content: '', refusal: null }, finish_reason: 'content_filter', logprobs: null };
}

export function answerText(parts: readonly GeminiAnswerPart[]): string {
  return parts.map((part) => (part.text !== undefined && !part.thought ? part.text : '')).join('');
}

/** The function calls among parts, each with the thought signature Gemini attached to its part. */
export function functionCalls(parts: readonly GeminiAnswerPart[]): (GeminiFunctionCall & { thoughtSignature?: string })[] {
  return parts.flatMap((part) => (part.functionCall ? [{ ...part.functionCall, ...(part.thoughtSignature ? { thoughtSignature: part.thoughtSignature } : {}) }] : []));
}

/**
 * Gemini's calls have no ids (before Gemini 3), so Tollgate numbers them per candidate. Gemini 3
 * rejects a later turn whose function call lacks the thought signature it was sent with, and chat
 * clients only echo ids back, so the signature rides in the id (base64url) and is restored from it.
 */
export function toolCallId(candidate: number, n: number, thoughtSignature?: string): string {
  const signature = thoughtSignature ? `_ts_${Buffer.from(thoughtSignature, 'base64').toString('base64url')}` : '';
  return `call_gemini_${candidate}_${n}${signature}`;
}

/** The thought signature carried in a tool-call id made by `toolCallId`, if any. */
export function thoughtSignatureOf(toolCallId: string): string | undefined {
  const match = /_ts_([A-Za-z0-9_-]+)$/.exec(toolCallId);
  return match ? Buffer.from(match[1]!, 'base64url').toString('base64') : undefined;
}

export function geminiChatUsage(usage: GeminiUsage | undefined): ChatUsage {
  const prompt = countOrNaN(usage?.promptTokenCount ?? 0);
  const completion = geminiOutputCount(usage);
  const cached = geminiCachedTokens(usage ?? {});
  // In OpenAI's own field, so a chat client sees it and the metering reads it back (openaiCachedTokens);
  // a bad count stays NaN (JSON null) so the metering rejects the report (translate/usage-report.ts).
  return cached !== 0 ? { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, prompt_tokens_details: { cached_tokens: cached } } : { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/**
 * Output tokens: `candidatesTokenCount` plus thinking. A usage without `candidatesTokenCount` is not a report of
 * zero output (README "What is billed"): NaN, so the metering rejects it and bills the delivered output by the tokenizer.
 */
export function geminiOutputCount(usage: GeminiUsage | undefined): number {
  if (usage?.candidatesTokenCount === undefined || usage.candidatesTokenCount === null) return Number.NaN;
  return sumOfCounts(usage.candidatesTokenCount, usage.thoughtsTokenCount) ?? Number.NaN;
}
