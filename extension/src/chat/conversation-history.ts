import type { ChatMessage } from '@tollgate/client';

/** A conversation put aside by New Chat, listed by Chat History. */
export interface SavedConversation {
  /** When it was put aside (ISO 8601). */
  at: string;
  title: string;
  messages: ChatMessage[];
}

/** Conversations kept per workspace; older ones are dropped. */
export const KEPT_CONVERSATIONS = 20;
/** Messages kept of one conversation (its latest): workspace state is no place for a whole book. */
export const KEPT_MESSAGES = 200;

/** The first user message, on one line, cut to 80 characters. */
export function conversationTitle(messages: readonly ChatMessage[]): string {
  const first = messages.find((message) => message.role === 'user');
  const text = (typeof first?.content === 'string' ? first.content : '').replace(/\s+/g, ' ').trim();
  return text.length > 80 ? `${text.slice(0, 79)}…` : text || '(empty)';
}

/**
 * The history with `messages` put first (newest first), bounded to KEPT_CONVERSATIONS of at most KEPT_MESSAGES
 * messages; an empty conversation is not kept.
 *
 * @example archive([], [{ role: 'user', content: 'hi' }], new Date(0)) // [{ at: '1970-…', title: 'hi', messages: [...] }]
 */
export function archive(history: readonly SavedConversation[], messages: readonly ChatMessage[], now: Date): SavedConversation[] {
  if (messages.length === 0) return [...history];
  const saved = { at: now.toISOString(), title: conversationTitle(messages), messages: messages.slice(-KEPT_MESSAGES) };
  return [saved, ...history].slice(0, KEPT_CONVERSATIONS);
}

/** The history after conversation `index` was taken out to be continued (the current one put aside first). */
export function reopen(history: readonly SavedConversation[], index: number, current: readonly ChatMessage[], now: Date): { history: SavedConversation[]; messages: ChatMessage[] } {
  const chosen = history[index];
  if (!chosen) return { history: [...history], messages: [...current] };
  const rest = history.filter((_, at) => at !== index);
  return { history: archive(rest, current, now), messages: [...chosen.messages] };
}
