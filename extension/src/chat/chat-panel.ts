import * as vscode from 'vscode';
import type { GatewayHost } from '../host/gateway-host.js';
import { createPanel, loadView } from '../webview/panel-assets.js';
import type { FromChatView, ToChatView } from '../webview/protocol.js';
import { ChatSession } from './chat-session.js';

/** The chat panel: a model picker filled from /v1/models and one conversation, streamed. */
export class ChatPanel implements vscode.Disposable {
  #panel: vscode.WebviewPanel | undefined;
  #session: ChatSession | undefined;
  #ready: Promise<void> | undefined;
  /** The model last picked in the view, used by "Ask About Selection". */
  #lastModel: string | undefined;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly host: GatewayHost,
  ) {}

  /** Opens (or reveals) the panel; resolves once its view can take messages. */
  open(): Promise<void> {
    if (this.#panel && this.#ready) {
      this.#panel.reveal(vscode.ViewColumn.Beside);
      return this.#ready;
    }
    const panel = createPanel(this.context, 'tollgate.chat', 'Tollgate Chat', vscode.ViewColumn.Beside);
    this.#panel = panel;
    const post = (message: ToChatView) => void panel.webview.postMessage(message);
    const session = (this.#session = new ChatSession(async () => (await this.host.gateway()).chatClient, post));
    this.#ready = new Promise((resolve) => {
      panel.webview.onDidReceiveMessage(async (message: FromChatView) => {
        if (message.type === 'ready') {
          await this.#sendModels(post);
          resolve();
        } else await this.#receive(message, session);
      });
    });
    panel.onDidDispose(() => {
      session.stop();
      this.#panel = undefined;
      this.#session = undefined;
      this.#ready = undefined;
    });
    loadView(this.context, panel, 'chat', 'Tollgate Chat');
    return this.#ready;
  }

  /** "Ask about selection": the selected code, fenced with its language, as a new question. */
  async ask(text: string, model?: string): Promise<void> {
    await this.open();
    await this.#session?.send(text, model ?? this.#lastModel ?? '');
  }

  async #receive(message: FromChatView, session: ChatSession): Promise<void> {
    switch (message.type) {
      case 'send':
        this.#lastModel = message.model;
        return session.send(message.text, message.model);
      case 'stop':
        return session.stop();
      case 'retry':
        return session.retry();
      case 'action':
        if (message.action.kind === 'command') await vscode.commands.executeCommand(message.action.command);
        else if (message.action.kind === 'open-url') await openRecoveryUrl(message.action.url);
        return;
    }
  }

  async #sendModels(post: (message: ToChatView) => void): Promise<void> {
    const configured = vscode.workspace.getConfiguration('tollgate').get<string>('chat.model') || undefined;
    try {
      const models = await (await this.host.gateway()).client.models();
      this.#lastModel ??= configured && models.includes(configured) ? configured : models[0];
      post({ type: 'models', models, selected: this.#lastModel });
    } catch (error) {
      post({ type: 'models', models: [], selected: undefined });
      post({ type: 'error', id: 0, explanation: { title: 'Gateway not running', detail: (error as Error).message, action: { kind: 'command', label: 'Restart Gateway', command: 'tollgate.restartGateway' } } });
    }
  }

  dispose(): void {
    this.#panel?.dispose();
  }
}

/** The in-process gateway's recovery URL is a command (raise the session budget); others open outside. */
async function openRecoveryUrl(url: string): Promise<void> {
  if (url.startsWith('command:')) await vscode.commands.executeCommand(url.slice('command:'.length));
  else if (/^https?:\/\//.test(url)) await vscode.env.openExternal(vscode.Uri.parse(url));
}
