import { jsonDepthExceeds, MAX_JSON_DEPTH } from '../http/json-depth.js';

/**
 * A chat tool call's `arguments` (JSON text) as the object Anthropic's `tool_use.input` takes: `{}` when
 * empty or not JSON, since a model may stream malformed arguments and an input must be an object.
 */
export function parseToolArguments(text: string): unknown {
  return parseEmbeddedJson(text || '{}') ?? {};
}

/**
 * JSON text a client put inside its body (a tool call's `arguments`, a tool result a route wants as an object), parsed;
 * undefined when it is not JSON, or nests deeper than the body itself may (MAX_JSON_DEPTH). The body's bound never saw
 * inside its strings: arguments of 50,000 nested objects parsed, and the translated request's serialization overflowed
 * the stack, a 500 on Anthropic, Gemini and Bedrock routes. Each caller falls back as for text that is not JSON.
 *
 * @example
 * parseEmbeddedJson('{"city":"Paris"}') // { city: 'Paris' }
 */
export function parseEmbeddedJson(text: string): unknown {
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
