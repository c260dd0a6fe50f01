/** Anthropic `stop_reason` → OpenAI `finish_reason`. */
export function finishReasonFromStopReason(stopReason: string | null | undefined): string {
  switch (stopReason) {
    case 'max_tokens':
    // The turn was cut by the context window (Sonnet 4.5 and later): truncated, as Bedrock's same reason maps.
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    case 'end_turn':
    case 'stop_sequence':
    case 'pause_turn':
    default:
      return 'stop';
  }
}

/** OpenAI `finish_reason` → Anthropic `stop_reason`. */
export function stopReasonFromFinishReason(finishReason: string | null | undefined): string {
  switch (finishReason) {
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
    case 'stop':
    default:
      return 'end_turn';
  }
}
