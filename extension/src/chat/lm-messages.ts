import type { ChatMessage } from '@tollgate/client';

/** A part of a VS Code language-model message, as plain data (editor-chat.ts maps VS Code's classes to it). */
export type LmPart = { kind: 'text'; value: string } | { kind: 'toolCall'; callId: string; name: string; input: object } | { kind: 'toolResult'; callId: string; text: string };

export interface LmMessage {
  role: 'user' | 'assistant';
  parts: LmPart[];
}

/** A tool VS Code offers the model (LanguageModelChatTool). */
export interface LmTool {
  name: string;
  description: string;
  inputSchema?: object | undefined;
}

/**
 * VS Code's messages in the chat-completions shape Tollgate takes: an assistant's tool calls become
 * `tool_calls`, each tool result its own `tool` message (they come in a user message in VS Code's shape).
 *
 * @example toChatMessages([{ role: 'user', parts: [{ kind: 'text', value: 'hi' }] }]) // [{ role: 'user', content: 'hi' }]
 */
export function toChatMessages(messages: readonly LmMessage[]): ChatMessage[] {
  return messages.flatMap((message): ChatMessage[] => {
    const text = message.parts.flatMap((part) => (part.kind === 'text' ? [part.value] : [])).join('');
    const calls = message.parts.flatMap((part) => (part.kind === 'toolCall' ? [{ id: part.callId, type: 'function', function: { name: part.name, arguments: JSON.stringify(part.input) } }] : []));
    const results = message.parts.flatMap((part): ChatMessage[] => (part.kind === 'toolResult' ? [{ role: 'tool', tool_call_id: part.callId, content: part.text }] : []));
    if (message.role === 'assistant') return [{ role: 'assistant', content: text || null, ...(calls.length ? { tool_calls: calls } : {}) }];
    return [...results, ...(text || results.length === 0 ? [{ role: 'user' as const, content: text }] : [])];
  });
}

/** VS Code's tools as chat-completions `tools`; a tool without a schema takes an empty object. */
export function toChatTools(tools: readonly LmTool[] | undefined): { tools?: unknown[] } {
  if (!tools?.length) return {};
  return { tools: tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.inputSchema ?? { type: 'object', properties: {} } } })) };
}

interface ToolCallDelta {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

/**
 * Streamed `tool_calls` deltas put back together: the id and name come in the first delta of an index, the
 * JSON arguments in pieces. `calls()` gives each call whole, its arguments parsed (`{}` when none came).
 */
export class ToolCallCollector {
  readonly #calls = new Map<number, { id: string; name: string; args: string }>();

  add(deltas: readonly unknown[] | undefined): void {
    for (const delta of (deltas ?? []) as ToolCallDelta[]) {
      const index = delta.index ?? 0;
      const call = this.#calls.get(index) ?? { id: '', name: '', args: '' };
      call.id ||= delta.id ?? '';
      call.name ||= delta.function?.name ?? '';
      call.args += delta.function?.arguments ?? '';
      this.#calls.set(index, call);
    }
  }

  /** Throws a SyntaxError naming the tool when its arguments are not JSON (a model's broken output). */
  calls(): { callId: string; name: string; input: object }[] {
    return [...this.#calls.values()].map((call) => {
      try {
        return { callId: call.id, name: call.name, input: call.args.trim() ? (JSON.parse(call.args) as object) : {} };
      } catch {
        throw new SyntaxError(`The model called ${call.name} with arguments that are not JSON: ${call.args.slice(0, 200)}`);
      }
    });
  }
}
