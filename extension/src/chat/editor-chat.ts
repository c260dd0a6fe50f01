import * as vscode from 'vscode';
import type { ChatMessage, TollgateClient } from '@tollgate/client';
import type { GatewayHost } from '../host/gateway-host.js';
import type { TableSchema } from '../databases/schema.js';
import { currentDatabase, readSettings } from '../host/read-settings.js';
import { explainError, factsOf } from './explain-error.js';
import { toChatMessages, toChatTools, ToolCallCollector, type LmPart, type LmTool } from './lm-messages.js';
import { modelGroups } from './model-groups.js';
import { participantMessages, schemaText } from './sql-prompts.js';

/**
 * Tollgate inside VS Code's own chat, where the running VS Code has the APIs: an `@tollgate` chat
 * participant (1.90+) and Tollgate's models in the model picker (the language-model-provider API,
 * 1.104+). Both are feature-detected; on an editor without them the chat panel is the way in.
 */
export interface EditorChatContext {
  schema(db: string): Promise<TableSchema[]>;
  /** The Tollgate diagnostics of a file, for `/fix`. */
  problems(uri: vscode.Uri): string[];
}

export function registerEditorChat(host: GatewayHost, sql: EditorChatContext): vscode.Disposable[] {
  const disposables: vscode.Disposable[] = [];
  if (typeof vscode.chat?.createChatParticipant === 'function') disposables.push(registerParticipant(host, sql));
  const lm = vscode.lm as unknown as { registerLanguageModelChatProvider?: (vendor: string, provider: unknown) => vscode.Disposable };
  if (typeof lm?.registerLanguageModelChatProvider === 'function') disposables.push(lm.registerLanguageModelChatProvider('tollgate', modelProvider(host)));
  return disposables;
}

/**
 * `@tollgate` in VS Code's chat: a plain question goes to the model with the conversation so far; `/sql`,
 * `/explain` and `/fix` ask about SQL with the current database's schema (sql-prompts.ts), `/explain` and
 * `/fix` taking the editor's selection when the prompt is empty and `/fix` the file's Tollgate errors.
 */
function registerParticipant(host: GatewayHost, sql: EditorChatContext): vscode.Disposable {
  const participant = vscode.chat.createChatParticipant('tollgate.chat', async (request, context, stream, token) => {
    const gateway = await host.gateway();
    const model = await chosenModel(gateway.client);
    const history: ChatMessage[] = context.history.flatMap((turn): ChatMessage[] => {
      if (turn instanceof vscode.ChatRequestTurn) return [{ role: 'user', content: turn.prompt }];
      const text = turn.response.map((part) => (part instanceof vscode.ChatResponseMarkdownPart ? part.value.value : '')).join('');
      return text ? [{ role: 'assistant', content: text }] : [];
    });
    const command = (['sql', 'explain', 'fix'] as const).find((name) => name === request.command);
    const editor = vscode.window.activeTextEditor;
    const db = currentDatabase();
    const schema = command ? schemaText(db, await sql.schema(db).catch(() => [])) : '';
    const asked = participantMessages(command, request.prompt, {
      schema,
      ...(editor && !editor.selection.isEmpty ? { selection: editor.document.getText(editor.selection) } : {}),
      ...(editor ? { problems: sql.problems(editor.document.uri) } : {}),
    });
    // A slash command is its own question; a plain one continues the conversation.
    const messages: ChatMessage[] = command ? asked : [...history, ...asked];
    await streamReply(gateway.chatClient, model, messages, token, (text) => stream.markdown(text)).catch((error) => {
      const explanation = explainError(factsOf(error));
      stream.markdown(`\n\n**${explanation.title}.** ${explanation.detail}`);
    });
    return { metadata: { model } };
  });
  participant.iconPath = new vscode.ThemeIcon('database');
  return participant;
}

/**
 * The shape of VS Code's LanguageModelChatProvider (1.104), declared here since older typings lack it: the
 * catalog's chat models (embedding models cannot chat), tool calling declared and carried both ways.
 */
function modelProvider(host: GatewayHost) {
  return {
    async provideLanguageModelChatInformation() {
      const listed = await (await host.gateway()).client.models().catch(() => [] as string[]);
      const chatModels = modelGroups(listed, readSettings(), new Set<string>()).flatMap((group) => group.models);
      return chatModels.map((id) => ({ id, name: `${id} (Tollgate)`, family: id, version: '1', maxInputTokens: 128_000, maxOutputTokens: 16_384, capabilities: { toolCalling: true } }));
    },
    async provideLanguageModelChatResponse(model: { id: string }, messages: readonly { role: number; content: readonly unknown[] }[], options: { tools?: readonly LmTool[] }, progress: vscode.Progress<unknown>, token: vscode.CancellationToken) {
      const gateway = await host.gateway();
      const converted = toChatMessages(messages.map((message) => ({ role: message.role === vscode.LanguageModelChatMessageRole.Assistant ? 'assistant' : 'user', parts: message.content.flatMap(lmPart) })));
      const abort = new AbortController();
      const cancel = token.onCancellationRequested(() => abort.abort());
      const tools = new ToolCallCollector();
      try {
        for await (const chunk of gateway.chatClient.chatStream({ model: model.id, messages: converted, ...toChatTools(options.tools) }, { signal: abort.signal })) {
          const delta = chunk.choices[0]?.delta;
          if (delta?.content) progress.report(new vscode.LanguageModelTextPart(delta.content));
          tools.add(delta?.tool_calls);
        }
        for (const call of tools.calls()) progress.report(new vscode.LanguageModelToolCallPart(call.callId, call.name, call.input));
      } finally {
        cancel.dispose();
      }
    },
    async provideTokenCount(_model: unknown, text: string | { content: readonly unknown[] }) {
      const plain = typeof text === 'string' ? text : text.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join('');
      return Math.ceil(plain.length / 4);
    },
  };
}

/** VS Code's part classes as plain data; a part of another kind (an image, prompt-tsx) is left out. */
function lmPart(part: unknown): LmPart[] {
  if (part instanceof vscode.LanguageModelTextPart) return [{ kind: 'text', value: part.value }];
  if (part instanceof vscode.LanguageModelToolCallPart) return [{ kind: 'toolCall', callId: part.callId, name: part.name, input: part.input }];
  if (part instanceof vscode.LanguageModelToolResultPart) return [{ kind: 'toolResult', callId: part.callId, text: part.content.map((inner) => (inner instanceof vscode.LanguageModelTextPart ? inner.value : '')).join('') }];
  return [];
}

async function streamReply(client: TollgateClient, model: string, messages: ChatMessage[], token: vscode.CancellationToken, emit: (text: string) => void): Promise<void> {
  const abort = new AbortController();
  const cancel = token.onCancellationRequested(() => abort.abort());
  try {
    for await (const chunk of client.chatStream({ model, messages }, { signal: abort.signal })) {
      const text = chunk.choices[0]?.delta?.content;
      if (text) emit(text);
    }
  } finally {
    cancel.dispose();
  }
}

async function chosenModel(client: TollgateClient): Promise<string> {
  const configured = vscode.workspace.getConfiguration('tollgate').get<string>('chat.model');
  if (configured) return configured;
  return (await client.models())[0] ?? 'gpt-4o';
}
