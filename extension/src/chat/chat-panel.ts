import * as vscode from 'vscode';
import type { ChatMessage } from '@tollgate/client';
import type { GatewayHost } from '../host/gateway-host.js';
import { configurePanel, createPanel, loadView, loadWhenShown, MAX_REPLACED_PANELS } from '../webview/panel-assets.js';
import type { FromChatView, ToChatView } from '../webview/protocol.js';
import { builtInProviderKeys } from '../host/host-config.js';
import { readSettings } from '../host/read-settings.js';
import { ChatSession } from './chat-session.js';
import { archive, reopen, type SavedConversation } from './conversation-history.js';
import { modelGroups, startingModel } from './model-groups.js';

/** Workspace-state keys: the conversation and the model survive a window reload (issue 18 #3). */
const CONVERSATION_KEY = 'tollgate.chat.conversation';
const MODEL_KEY = 'tollgate.chat.model';
/** Conversations put aside by New Chat, newest first, bounded (conversation-history.ts). */
const HISTORY_KEY = 'tollgate.chat.history';
export const CHAT_VIEW_TYPE = 'tollgate.chat';
/** The Chat view in the Tollgate activity-bar container (package.json `views`). */
export const CHAT_SIDEBAR_VIEW = 'tollgate.chatView';

/** What the panel and the sidebar view have in common: a webview that can go away. */
type ChatSurface = vscode.WebviewPanel | vscode.WebviewView;

/**
 * The chat: a model picker filled from /v1/models and one conversation, streamed, shown in a panel and
 * in the Chat view of the activity bar — one conversation, every open surface shows it. The conversation
 * is kept in workspace state and the panel is restored after a reload by its serializer.
 */
export class ChatPanel implements vscode.Disposable {
  #panel: vscode.WebviewPanel | undefined;
  #session: ChatSession | undefined;
  #ready: Promise<void> | undefined;
  /** Surfaces whose view said 'ready': the session's messages go to each. */
  readonly #surfaces = new Set<vscode.Webview>();
  readonly #serializer: vscode.Disposable;
  readonly #sidebar: vscode.Disposable;
  readonly #restarted: vscode.Disposable;
  /** Panels replaced because none of their documents ran; a few at most per session. */
  #replaced = 0;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly host: GatewayHost,
    /** Runs a `sql` code block from a reply straight into the results grid. */
    private readonly runSql: (sql: string) => Promise<void>,
  ) {
    this.#serializer = vscode.window.registerWebviewPanelSerializer(CHAT_VIEW_TYPE, {
      // Not awaiting the view's 'ready': VS Code holds the view's messages until this resolves.
      deserializeWebviewPanel: async (panel) => void this.#attachPanel(panel),
    });
    // A restart (settings, a provider added) may change the models: every open picker is filled again.
    this.#restarted = host.onDidStart(() => {
      if (this.#surfaces.size > 0) void this.#sendModels((message) => this.#surfaces.forEach((webview) => void webview.postMessage(message)));
    });
    this.#sidebar = vscode.window.registerWebviewViewProvider(
      CHAT_SIDEBAR_VIEW,
      { resolveWebviewView: (view) => void this.#attach(view) },
      { webviewOptions: { retainContextWhenHidden: true } },
    );
  }

  /** The one conversation, shared by the panel and the sidebar view; created when the first opens. */
  #currentSession(): ChatSession {
    const broadcast = (message: ToChatView) => {
      for (const webview of this.#surfaces) void webview.postMessage(message);
    };
    const restored = this.context.workspaceState.get<ChatMessage[]>(CONVERSATION_KEY) ?? [];
    this.#session ??= new ChatSession(async () => (await this.host.gateway()).chatClient, broadcast, restored, (messages) => {
      void this.context.workspaceState.update(CONVERSATION_KEY, messages);
      // A reply was kept: it was paid for.
      if (messages.at(-1)?.role === 'assistant') void this.host.refreshSpend();
    });
    return this.#session;
  }

  /** The model last picked in the view (remembered per workspace), used by "Ask About Selection". */
  get #lastModel(): string | undefined {
    return this.context.workspaceState.get<string>(MODEL_KEY);
  }

  /** Opens (or reveals) the panel; resolves once its view can take messages. */
  open(): Promise<void> {
    if (this.#panel && this.#ready) {
      this.#panel.reveal(undefined, false);
      return this.#ready;
    }
    return this.#attachPanel(createPanel(this.context, CHAT_VIEW_TYPE, 'Tollgate Chat', vscode.ViewColumn.Beside));
  }

  #attachPanel(panel: vscode.WebviewPanel): Promise<void> {
    configurePanel(this.context, panel);
    this.#panel = panel;
    panel.onDidDispose(() => {
      if (this.#panel !== panel) return; // replaced (#replacePanel)
      this.#panel = undefined;
      this.#ready = undefined;
    });
    this.#ready = this.#attach(panel, this.#replaced < MAX_REPLACED_PANELS ? () => this.#replacePanel(panel) : undefined);
    return this.#ready;
  }

  /**
   * A panel that runs none of its documents (loadWhenShown) is replaced by a new one where it was: opened
   * before the old one closes, so its editor group never empties. Resolves once the new one is ready.
   */
  #replacePanel(panel: vscode.WebviewPanel): Promise<void> {
    this.#replaced++;
    const ready = this.#attachPanel(createPanel(this.context, CHAT_VIEW_TYPE, 'Tollgate Chat', panel.viewColumn ?? vscode.ViewColumn.Beside));
    panel.dispose();
    return ready;
  }

  /**
   * Loads the chat into a panel or the sidebar view; resolves once its view can take messages (or, when
   * `replace` had to open another panel for it, once that one can).
   */
  #attach(surface: ChatSurface, replace?: () => Promise<void>): Promise<void> {
    configurePanel(this.context, surface);
    const session = this.#currentSession();
    const post = (message: ToChatView) => void surface.webview.postMessage(message);
    // Accepted on the view's 'ready' itself, not after the models arrive (the gateway may still be starting):
    // a view that said 'ready' is never loaded again (loadWhenShown).
    let resolveReady!: () => void;
    const ready = new Promise<void>((resolve) => (resolveReady = resolve));
    surface.webview.onDidReceiveMessage(async (message: FromChatView) => {
      if (message.type === 'ready') {
        if (!view.accept(message)) return;
        session.replay(post);
        this.#surfaces.add(surface.webview);
        await this.#sendModels(post);
        resolveReady();
      } else await this.#receive(message, session);
    });
    let replaced = false;
    surface.onDidDispose(() => {
      this.#surfaces.delete(surface.webview);
      // The last surface gone: nothing shows the reply any more (a replaced panel's successor still will).
      if (this.#surfaces.size === 0 && !replaced) session.stop();
    });
    const replaceStuck = replace && (() => {
      replaced = true;
      void replace().then(resolveReady);
    });
    const view = loadWhenShown(surface, (load) => loadView(this.context, surface, 'chat', 'Tollgate Chat', load), replaceStuck);
    return ready;
  }

  /** "Tollgate: New Chat": the conversation goes to History and a new one starts. */
  async newChat(): Promise<void> {
    await this.open();
    this.#startNew(this.#currentSession());
  }

  #startNew(session: ChatSession): void {
    void this.context.workspaceState.update(HISTORY_KEY, archive(this.#history(), session.messages, new Date()));
    session.clear();
  }

  #history(): SavedConversation[] {
    return this.context.workspaceState.get<SavedConversation[]>(HISTORY_KEY) ?? [];
  }

  /** "Tollgate: Chat History": pick an earlier conversation to continue; the current one is put aside. */
  async showHistory(): Promise<void> {
    const history = this.#history();
    const items = history.map((saved, index) => ({ label: saved.title, description: `${saved.messages.length} messages`, detail: new Date(saved.at).toLocaleString(), index }));
    const chosen = await vscode.window.showQuickPick(items, { title: 'Chat History', placeHolder: items.length ? 'Continue an earlier conversation' : 'No earlier conversations: New Chat puts one here' });
    if (!chosen) return;
    await this.open();
    const session = this.#currentSession();
    const next = reopen(history, chosen.index, session.messages, new Date());
    await this.context.workspaceState.update(HISTORY_KEY, next.history);
    session.load(next.messages);
  }

  /**
   * "Ask About Selection": the code, fenced with its language and headed by its file:line, goes into the
   * composer for the user to ask about; nothing is sent until they do (it used to send a fixed prompt).
   */
  async prefill(text: string): Promise<void> {
    await this.open();
    void this.#panel?.webview.postMessage({ type: 'prefill', text } satisfies ToChatView);
  }

  async #receive(message: FromChatView, session: ChatSession): Promise<void> {
    switch (message.type) {
      case 'send':
        await this.context.workspaceState.update(MODEL_KEY, message.model);
        return session.send(message.text, message.model);
      case 'stop':
        return session.stop();
      case 'retry':
        return session.retry(message.automatic ?? false);
      case 'new':
        return this.#startNew(session);
      case 'history':
        return this.showHistory();
      case 'code':
        return this.codeAction(message.action, message.text, message.language);
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
      const settings = readSettings();
      const stored = await this.host.keys.all(Object.keys(settings.providers));
      const keyed = new Set([...Object.keys(stored), ...Object.entries(builtInProviderKeys).filter(([, variable]) => process.env[variable]).map(([name]) => name)]);
      const groups = modelGroups(models, settings, keyed);
      post({ type: 'models', groups, selected: startingModel(groups, [this.#lastModel, configured]) });
    } catch (error) {
      post({ type: 'models', groups: [], selected: undefined });
      post({ type: 'error', id: 0, explanation: { title: 'Gateway not running', detail: (error as Error).message, action: { kind: 'command', label: 'Restart Gateway', command: 'tollgate.restartGateway' } } });
    }
  }

  /** A code block's Copy, Insert (at the cursor of the last editor) or Run (`sql` blocks). */
  async codeAction(action: 'copy' | 'insert' | 'run', text: string, language: string): Promise<void> {
    if (action === 'copy') {
      await vscode.env.clipboard.writeText(text);
      vscode.window.setStatusBarMessage('Copied the code block', 3000);
    } else if (action === 'run' && language === 'sql') await this.runSql(text);
    else if (action === 'insert') {
      const editor = vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors[0];
      if (!editor) return void vscode.window.showWarningMessage('Open an editor to insert the code into.');
      await editor.edit((edit) => edit.replace(editor.selection, text));
    }
  }

  dispose(): void {
    this.#serializer.dispose();
    this.#sidebar.dispose();
    this.#restarted.dispose();
    this.#panel?.dispose();
  }
}

/** The in-process gateway's recovery URL is a command (raise the session budget); others open outside. */
async function openRecoveryUrl(url: string): Promise<void> {
  if (url.startsWith('command:')) await vscode.commands.executeCommand(url.slice('command:'.length));
  else if (/^https?:\/\//.test(url)) await vscode.env.openExternal(vscode.Uri.parse(url));
}
