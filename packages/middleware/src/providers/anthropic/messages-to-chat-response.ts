import { anthropicCacheReadTokens, countOrNaN, finishReasonFromStopReason, sumOfCounts, type ChatCompletion, type ChatToolCall, type MessagesResponse } from '../../translate/index.js';

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
 * Anthropic counts cached prompt tokens separately; all of them are input the client sent. NaN when a
 * field is not a count (`"5"` was once summed to `"500"`): the report is then ignored (usage-report.ts).
 */
export function inputTokensOf(usage: { input_tokens?: number; cache_creation_input_tokens?: number | null; cache_read_input_tokens?: number | null }): number {
  return sumOfCounts(usage.input_tokens, usage.cache_creation_input_tokens, usage.cache_read_input_tokens) ?? Number.NaN;
}
