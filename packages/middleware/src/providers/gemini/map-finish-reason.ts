/**
 * Gemini `finishReason` → OpenAI `finish_reason`. Gemini answers STOP even when the turn ended in a
 * function call (recorded fixture google-tool-call), so the caller says whether calls were made.
 *
 * @example
 * finishReasonFromGemini('STOP', true) // 'tool_calls'
 */
export function finishReasonFromGemini(reason: string | undefined, madeToolCalls: boolean): string {
  switch (reason) {
    case 'MAX_TOKENS':
      return 'length';
    case 'SAFETY':
    case 'RECITATION':
    case 'BLOCKLIST':
    case 'PROHIBITED_CONTENT':
    case 'SPII':
    case 'IMAGE_SAFETY':
    case 'LANGUAGE':
      return 'content_filter';
    case 'STOP':
    case 'MALFORMED_FUNCTION_CALL':
    case 'OTHER':
    case 'FINISH_REASON_UNSPECIFIED':
    default:
      return madeToolCalls ? 'tool_calls' : 'stop';
  }
}
