import * as vscode from 'vscode';
import { ChatPanel } from './chat/chat-panel.js';
import { registerEditorChat } from './chat/editor-chat.js';
import { addProvider } from './host/add-provider.js';
import { budgetSettingCommand } from './host/budget.js';
import { GatewayHost } from './host/gateway-host.js';
import { ProviderKeys } from './host/provider-keys.js';
import { keepCurrentDatabaseIn, readSettings } from './host/read-settings.js';
import { addDatabase, newQuery, openSample, pickDatabase, useDatabase } from './databases/database-commands.js';
import { DatabasesView, schemaCompletion } from './databases/databases-view.js';
import { ResultsPanel } from './results/results-panel.js';
import { QueryHistory } from './sql/query-history.js';
import { SqlCodeLens } from './sql/sql-codelens.js';
import { FixWithAi, fixWithAi } from './sql/fix-with-ai.js';
import { SqlRunner } from './sql/sql-runner.js';

let host: GatewayHost | undefined;

/**
 * Wires the extension: one in-process Tollgate (started on first use), the SQL runner with its results
 * grid and diagnostics, and the chat panel. Commands are the only entry points.
 */
export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('Tollgate', { log: true });
  keepCurrentDatabaseIn(context.workspaceState);
  const keys = new ProviderKeys(context.secrets);
  host = new GatewayHost(context, keys, log);
  const results = new ResultsPanel(context);
  const runner = new SqlRunner(host, results, new QueryHistory(context.workspaceState));
  const chat = new ChatPanel(context, host, (sql) => runner.run({ sql, label: 'SQL from chat' }));
  const gatewayHost = host;
  const databases = new DatabasesView(gatewayHost);
  const refreshDatabases = (db?: string) => {
    databases.refresh(db);
    gatewayHost.refreshStatus();
  };
  type DatabaseNode = { kind: 'database'; name: string } | undefined;

  const withSqlEditor = (run: (editor: vscode.TextEditor) => Promise<void>) => () => {
    const editor = vscode.window.activeTextEditor;
    if (!editor) return vscode.window.showWarningMessage('Open a .sql file to run SQL, or use "Tollgate: Run SQL…".');
    return run(editor);
  };

  context.subscriptions.push(
    log,
    gatewayHost,
    results,
    runner,
    chat,
    vscode.languages.registerCodeLensProvider({ language: 'sql' }, new SqlCodeLens()),
    vscode.commands.registerCommand('tollgate.runSql', withSqlEditor((editor) => runner.runEditor(editor))),
    vscode.commands.registerCommand('tollgate.runFile', withSqlEditor((editor) => runner.runEditor(editor, true))),
    vscode.commands.registerCommand('tollgate.runRange', async (uri: vscode.Uri, start: number, end: number) => runner.runRange(await vscode.workspace.openTextDocument(uri), start, end)),
    vscode.commands.registerCommand('tollgate.runSqlInput', () => runner.runInput()),
    vscode.commands.registerCommand('tollgate.showHistory', () => runner.showHistory()),
    vscode.commands.registerCommand('tollgate.pickDatabase', () => pickDatabase()),
    databases,
    vscode.window.registerTreeDataProvider('tollgate.databases', databases),
    vscode.languages.registerCompletionItemProvider({ language: 'sql' }, schemaCompletion(databases)),
    runner.onDidRun((db) => databases.refresh(db)),
    vscode.workspace.onDidChangeConfiguration((event) => event.affectsConfiguration('tollgate.databases') && refreshDatabases()),
    vscode.commands.registerCommand('tollgate.refreshDatabases', () => refreshDatabases()),
    vscode.commands.registerCommand('tollgate.addDatabase', async () => {
      const name = await addDatabase();
      if (name) await useDatabase(name);
    }),
    vscode.commands.registerCommand('tollgate.openSqliteFile', async () => {
      const picked = await vscode.window.showOpenDialog({ title: 'Open SQLite File', canSelectMany: false, filters: { SQLite: ['sqlite', 'sqlite3', 'db'], 'All files': ['*'] } });
      const name = picked?.[0] && (await addDatabase(picked[0]));
      if (name) await useDatabase(name);
    }),
    vscode.commands.registerCommand('tollgate.useDatabase', (node: DatabaseNode) => node && useDatabase(node.name)),
    vscode.commands.registerCommand('tollgate.newQuery', (node: DatabaseNode) => newQuery(node?.name)),
    vscode.commands.registerCommand('tollgate.openSample', () => openSample()),
    vscode.commands.registerCommand('tollgate.openChat', () => chat.open()),
    vscode.commands.registerCommand('tollgate.newChat', () => chat.newChat()),
    vscode.commands.registerCommand('tollgate.chatHistory', () => chat.showHistory()),
    vscode.languages.registerCodeActionsProvider({ language: 'sql' }, new FixWithAi(), { providedCodeActionKinds: FixWithAi.kinds }),
    vscode.commands.registerCommand('tollgate.fixWithAi', (uri: vscode.Uri, offset: number, error: string) => fixWithAi(uri, offset, error, { schema: (db) => databases.schema(db), prefill: (text) => chat.prefill(text) })),
    vscode.commands.registerCommand('tollgate.askAboutSelection', () => askAboutSelection(chat)),
    vscode.commands.registerCommand('tollgate.addProvider', () => addProvider(keys)),
    vscode.commands.registerCommand('tollgate.setProviderApiKey', () => keys.prompt(Object.keys(readSettings().providers))),
    vscode.commands.registerCommand('tollgate.restartGateway', async () => {
      await gatewayHost.stop();
      await gatewayHost.gateway();
    }),
    vscode.commands.registerCommand('tollgate.openBudgetSetting', () => {
      const { command, args } = budgetSettingCommand(vscode.workspace.getConfiguration('tollgate').inspect('sessionBudgetUsd'));
      return vscode.commands.executeCommand(command, args);
    }),
    ...registerEditorChat(gatewayHost, { schema: (db) => databases.schema(db), problems: (uri) => runner.diagnostics.get(uri)?.map((diagnostic) => diagnostic.message) ?? [] }),
  );
}

export async function deactivate(): Promise<void> {
  await host?.stop();
  host = undefined;
}

function askAboutSelection(chat: ChatPanel): Promise<void> | undefined {
  const editor = vscode.window.activeTextEditor;
  const selected = editor?.document.getText(editor.selection);
  if (!editor || !selected?.trim()) {
    void vscode.window.showWarningMessage('Select some code first.');
    return undefined;
  }
  const { start, end } = editor.selection;
  const lines = start.line === end.line ? `${start.line + 1}` : `${start.line + 1}-${end.line + 1}`;
  const where = `${vscode.workspace.asRelativePath(editor.document.uri)}:${lines}`;
  return chat.prefill(`\n\nAbout ${where}:\n\`\`\`${editor.document.languageId}\n${selected.replace(/\n$/, '')}\n\`\`\``);
}
