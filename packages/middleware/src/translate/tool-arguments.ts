/**
 * A chat tool call's `arguments` (JSON text) as the object Anthropic's `tool_use.input` takes: `{}` when
 * empty or not JSON, since a model may stream malformed arguments and an input must be an object.
 */
export function parseToolArguments(text: string): unknown {
  try {
    return JSON.parse(text || '{}');
  } catch {
    return {};
  }
}
