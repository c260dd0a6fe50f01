import { parseToolArguments } from './tool-arguments.js';
import { countOrNaN } from './usage-report.js';
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
  for (const call of choice?.message.tool_calls ?? []) {
    content.push({ type: 'tool_use', id: call.id, name: call.function.name, input: parseToolArguments(call.function.arguments) });
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
