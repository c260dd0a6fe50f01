import type { ChatMessage } from './wire-types.js';

/** Plain text of a chat content value: a string, or the text parts of an array joined. */
export function textOf(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (part.type === 'text' ? textOfPart(part) : '')).join('');
}

/**
 * A text part's text as a string. The schema lets a part's fields be anything (looseObject), and `String()`
 * throws on an object whose own `toString`/`valueOf` are not functions (`{"toString":"x"}`, valid JSON): that
 * was a 500 for one request body. Every other value converts as `String()` always did.
 */
export function textOfPart(part: object): string {
  const text = (part as { text?: unknown }).text;
  if (typeof text === 'string') return text;
  if (text === undefined || text === null) return '';
  try {
    return String(text);
  } catch {
    return JSON.stringify(text);
  }
}
