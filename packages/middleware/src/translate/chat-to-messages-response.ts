import { parseToolArguments } from './tool-arguments.js';
import { countOrNaN } from './usage-report.js';
import { openaiCachedTokens } from './cached-prompt-tokens.js';
import { stopReasonFromFinishReason } from './map-stop-reason.js';
import type { AnthropicBlock, ChatCompletion, MessagesResponse } from './wire-types.js';

/**
 * OpenAI chat completion → Anthropic message, naming the alias in `model`.
 *
 * @example
 * chatToMessagesResponse(completion, 'gpt').stop_reason // 'end_turn'
 */
export function chatToMessagesResponse(completion: ChatCompletion, alias: string): MessagesResponse {
  const choice = completion.choices[0];
  const content: AnthropicBlock[] = [];
  if (choice?.message.content) content.push({ type: 'text', text: choice.message.content });
  // OpenAI's refusal (structured outputs) is Anthropic's `refusal` stop, its words the answer's text.
  const refusal = choice?.message.refusal;
  if (refusal) content.push({ type: 'text', text: refusal });
  for (const call of choice?.message.tool_calls ?? []) {
    content.push({ type: 'tool_use', id: call.id, name: call.function.name, input: parseToolArguments(call.function.arguments) });
  }
  return {
    id: `msg_${completion.id.replace(/^chatcmpl-/, '')}`,
    type: 'message',
    role: 'assistant',
    model: alias,
    content,
    stop_reason: refusal ? 'refusal' : stopReasonFromFinishReason(choice?.finish_reason),
    stop_sequence: null,
    usage: messagesUsageOfChat(countOrNaN(completion.usage?.prompt_tokens ?? 0), countOrNaN(completion.usage?.completion_tokens ?? 0), completion.usage ? openaiCachedTokens(completion.usage) : 0),
  };
}

/**
 * Chat usage in Anthropic's fields: chat's `prompt_tokens` counts the cache reads too, Anthropic's `input_tokens`
 * only the uncached rest, the reads being `cache_read_input_tokens` (README "Cached prompt tokens").
 */
export function messagesUsageOfChat(prompt: number, output: number, cached: number): { input_tokens: number; output_tokens: number; cache_read_input_tokens?: number } {
  return cached === 0 ? { input_tokens: prompt, output_tokens: output } : { input_tokens: prompt - cached, output_tokens: output, cache_read_input_tokens: cached };
}
