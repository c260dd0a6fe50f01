import type { ChatMessage } from './wire-types.js';

/** Plain text of a chat content value: a string, or the text parts of an array joined. */
export function textOf(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (part.type === 'text' ? String((part as { text: unknown }).text ?? '') : '')).join('');
}
