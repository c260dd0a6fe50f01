import { randomUUID } from 'node:crypto';
import { countOrNaN, sumOfCounts, type ChatCompletion, type ChatToolCall, type ChatUsage } from '../../translate/index.js';
import type { SeenUsage } from '../codec.js';
import type { ConverseResponse, ConverseUsage } from './converse-wire.js';
import { finishReasonFromConverse } from './map-stop-reason.js';

/**
 * Converse answer → OpenAI chat completion naming the alias: text blocks joined as the content,
 * `toolUse` blocks as tool calls (their `toolUseId` is the call id, so results find their way back).
 * Converse answers carry no id, so one is made.
 *
 * @example
 * converseToChatResponse({ output: { message: { role: 'assistant', content: [{ text: 'Hi' }] } }, stopReason: 'end_turn' }, 'claude')
 * // → { object: 'chat.completion', model: 'claude', choices: [{ message: { content: 'Hi' }, finish_reason: 'stop' }], … }
 */
export function converseToChatResponse(response: ConverseResponse, alias: string, created = Math.floor(Date.now() / 1000)): ChatCompletion {
  const blocks = response.output.message.content;
  const text = blocks.map((block) => block.text ?? '').join('');
  const toolCalls: ChatToolCall[] = blocks.flatMap((block) => (block.toolUse ? [{ id: block.toolUse.toolUseId, type: 'function' as const, function: { name: block.toolUse.name, arguments: JSON.stringify(block.toolUse.input ?? {}) } }] : []));
  const completion: ChatCompletion = {
    id: `chatcmpl-${randomUUID()}`,
    object: 'chat.completion',
    created,
    model: alias,
    choices: [
      {
        index: 0,
        message: toolCalls.length > 0 ? { role: 'assistant', content: text || null, tool_calls: toolCalls, refusal: null } : { role: 'assistant', content: text, refusal: null },
        finish_reason: finishReasonFromConverse(response.stopReason),
        logprobs: null,
      },
    ],
  };
  if (response.usage) completion.usage = chatUsageOfConverse(response.usage);
  return completion;
}

/**
 * Converse usage in chat's fields. Bedrock counts cache reads and writes beside `inputTokens` (which is
 * then the uncached rest, as Anthropic does); chat's `prompt_tokens` is the whole prompt, with the reads
 * in `prompt_tokens_details.cached_tokens`. A bad count stays NaN so the usage check rejects the report.
 */
export function chatUsageOfConverse(usage: ConverseUsage): ChatUsage {
  const prompt = sumOfCounts(usage.inputTokens, usage.cacheReadInputTokens, usage.cacheWriteInputTokens) ?? Number.NaN;
  const completion = countOrNaN(usage.outputTokens);
  const cached = usage.cacheReadInputTokens === undefined ? 0 : countOrNaN(usage.cacheReadInputTokens);
  const chat: ChatUsage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  if (cached !== 0) chat.prompt_tokens_details = { cached_tokens: cached };
  return chat;
}

/** What the meter bills for a Converse usage report (cache reads and writes as parts of the prompt, README "Cached prompt tokens"). */
export function seenUsageOfConverse(usage: ConverseUsage | undefined): SeenUsage {
  if (!usage) return { inputTokens: 0, outputTokens: 0, reported: false };
  const chat = chatUsageOfConverse(usage);
  const written = usage.cacheWriteInputTokens === undefined ? 0 : countOrNaN(usage.cacheWriteInputTokens);
  return { inputTokens: chat.prompt_tokens, outputTokens: chat.completion_tokens, reported: true, cachedInputTokens: chat.prompt_tokens_details?.cached_tokens ?? 0, cacheWriteTokens: written };
}
