import * as vscode from 'vscode';
import { ChatPanel } from './chat/chat-panel.js';
import { registerEditorChat } from './chat/editor-chat.js';
import { GatewayHost } from './host/gateway-host.js';
import { ProviderKeys } from './host/provider-keys.js';
import { currentDatabase, readSettings } from './host/read-settings.js';
import { ResultsPanel } from './results/results-panel.js';
import { QueryHistory } from './sql/query-history.js';
import { SqlCodeLens } from './sql/sql-codelens.js';
import { SqlRunner } from './sql/sql-runner.js';

let host: GatewayHost | undefined;

/**
 * Wires the extension: one in-process Tollgate (started on first use), the SQL runner with its results
 * grid and diagnostics, and the chat panel. Commands are the only entry points.
 */
export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('Tollgate', { log: true });
  const keys = new ProviderKeys(context.secrets);
  host = new GatewayHost(context, keys, log);
  const results = new ResultsPanel(context);
  const runner = new SqlRunner(host, results, new QueryHistory(context.workspaceState));
  const chat = new ChatPanel(context, host);
  const gatewayHost = host;

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
    vscode.commands.registerCommand('tollgate.openChat', () => chat.open()),
    vscode.commands.registerCommand('tollgate.newChat', () => chat.newChat()),
    vscode.commands.registerCommand('tollgate.askAboutSelection', () => askAboutSelection(chat)),
    vscode.commands.registerCommand('tollgate.setProviderApiKey', () => keys.prompt(Object.keys(readSettings().providers))),
    vscode.commands.registerCommand('tollgate.restartGateway', async () => {
      await gatewayHost.stop();
      await gatewayHost.gateway();
    }),
    vscode.commands.registerCommand('tollgate.openBudgetSetting', () => vscode.commands.executeCommand('workbench.action.openSettings', 'tollgate.sessionBudgetUsd')),
    ...registerEditorChat(gatewayHost),
  );
}

export async function deactivate(): Promise<void> {
  await host?.stop();
  host = undefined;
}

async function pickDatabase(): Promise<void> {
  const databases = readSettings().databases;
  const current = currentDatabase();
  const items = Object.entries(databases).map(([name, path]) => ({ label: name, description: path, picked: name === current, detail: name === current ? 'current' : undefined }));
  const chosen = await vscode.window.showQuickPick(items, { title: 'Current Database', placeHolder: 'SQL runs against this database; add more under the "tollgate.databases" setting' });
  if (chosen) await vscode.workspace.getConfiguration('tollgate').update('currentDatabase', chosen.label, vscode.workspace.workspaceFolders ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global);
}

function askAboutSelection(chat: ChatPanel): Promise<void> | undefined {
  const editor = vscode.window.activeTextEditor;
  const selected = editor?.document.getText(editor.selection);
  if (!editor || !selected?.trim()) {
    void vscode.window.showWarningMessage('Select some code first.');
    return undefined;
  }
  return chat.ask(`Explain this ${editor.document.languageId} code:\n\n\`\`\`${editor.document.languageId}\n${selected}\n\`\`\``);
}
