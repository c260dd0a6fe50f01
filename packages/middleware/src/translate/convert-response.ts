import { countOrNaN, sumOfCounts } from './usage-report.js';
import { anthropicCacheReadTokens } from './cached-prompt-tokens.js';
import { finishReasonFromStopReason, stopReasonFromFinishReason } from './map-stop-reason.js';
import type { AnthropicBlock, ChatCompletion, ChatToolCall, MessagesResponse } from './wire-types.js';

/**
 * Anthropic message → OpenAI chat completion, naming the alias in `model`.
 *
 * @example
 * messagesToChatResponse(anthropicMessage, 'claude-sonnet').choices[0].finish_reason // 'stop'
 */
export function messagesToChatResponse(message: MessagesResponse, alias: string, created = Math.floor(Date.now() / 1000)): ChatCompletion {
  const text = message.content.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text).join('');
  const toolCalls: ChatToolCall[] = message.content
    .filter((b): b is { type: 'tool_use'; id: string; name: string; input: unknown } => b.type === 'tool_use')
    .map((b) => ({ id: b.id, type: 'function', function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) } }));
  const input = inputTokensOf(message.usage);
  const output = countOrNaN(message.usage.output_tokens);
  return {
    id: `chatcmpl-${message.id}`,
    object: 'chat.completion',
    created,
    model: alias,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: text || (toolCalls.length > 0 ? null : ''), ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}), refusal: null },
        finish_reason: finishReasonFromStopReason(message.stop_reason),
        logprobs: null,
      },
    ],
    usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output, prompt_tokens_details: { cached_tokens: anthropicCacheReadTokens(message.usage) } },
  };
}

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
  for (const call of choice?.message.tool_calls ?? []) {
    content.push({ type: 'tool_use', id: call.id, name: call.function.name, input: safeJson(call.function.arguments) });
  }
  return {
    id: `msg_${completion.id.replace(/^chatcmpl-/, '')}`,
    type: 'message',
    role: 'assistant',
    model: alias,
    content,
    stop_reason: stopReasonFromFinishReason(choice?.finish_reason),
    stop_sequence: null,
    usage: { input_tokens: countOrNaN(completion.usage?.prompt_tokens ?? 0), output_tokens: countOrNaN(completion.usage?.completion_tokens ?? 0) },
  };
}

/**
 * Anthropic counts cached prompt tokens separately; all of them are input the client sent. NaN when a
 * field is not a count (`"5"` was once summed to `"500"`): the report is then ignored (usage-report.ts).
 */
export function inputTokensOf(usage: { input_tokens?: number; cache_creation_input_tokens?: number | null; cache_read_input_tokens?: number | null }): number {
  return sumOfCounts(usage.input_tokens, usage.cache_creation_input_tokens, usage.cache_read_input_tokens) ?? Number.NaN;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text || '{}');
  } catch {
    return {};
  }
}
