/**
 * Bedrock Converse `stopReason` → OpenAI `finish_reason`, as the other providers' reasons are mapped:
 * a guardrail or a content filter is `content_filter`, an exhausted context is `length`.
 *
 * @example
 * finishReasonFromConverse('tool_use') // 'tool_calls'
 */
export function finishReasonFromConverse(stopReason: string): string {
  switch (stopReason) {
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'guardrail_intervened':
    case 'content_filtered':
      return 'content_filter';
    case 'end_turn':
    case 'stop_sequence':
    default:
      return 'stop';
  }
}
