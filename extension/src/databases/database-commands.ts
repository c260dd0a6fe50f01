import * as vscode from 'vscode';
import { MEMORY } from '../host/host-config.js';
import { chooseDatabase, currentDatabase, readSettings } from '../host/read-settings.js';

/** Database names are keys in settings and in requests: letters, digits, `_` and `-`. */
const NAME = /^[A-Za-z][\w-]{0,63}$/;

/** "Pick Current Database": the choice is kept in workspace state; "Add a database…" is one of the items. */
export async function pickDatabase(): Promise<string | undefined> {
  const databases = readSettings().databases;
  const current = currentDatabase();
  const add = { label: '$(add) Add a database…', description: '', always: true };
  const items = [...Object.entries(databases).map(([name, path]) => ({ label: name, description: path === MEMORY ? 'in memory' : path, detail: name === current ? 'current' : undefined, always: false })), add];
  const chosen = await vscode.window.showQuickPick(items, { title: 'Current Database', placeHolder: 'SQL runs against this database' });
  if (!chosen) return undefined;
  const name = chosen === add ? await addDatabase() : chosen.label;
  if (name) await useDatabase(name);
  return name;
}

export async function useDatabase(name: string): Promise<void> {
  await chooseDatabase(name);
  void vscode.commands.executeCommand('tollgate.refreshDatabases');
}

/** Asks a name and a file (or an in-memory scratch database) and adds it to `tollgate.databases`. */
export async function addDatabase(file?: vscode.Uri): Promise<string | undefined> {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  let path = file ? (folder ? vscode.workspace.asRelativePath(file, false) : file.fsPath) : undefined;
  if (!path) {
    const kind = await vscode.window.showQuickPick(
      [
        { label: 'SQLite file…', description: 'an existing file, or a new one', value: 'file' },
        { label: 'In memory', description: 'a scratch database that lasts the session', value: 'memory' },
      ],
      { title: 'Add a Database' },
    );
    if (!kind) return undefined;
    if (kind.value === 'memory') path = MEMORY;
    else {
      const picked = await vscode.window.showOpenDialog({ title: 'Open SQLite File', canSelectMany: false, filters: { SQLite: ['sqlite', 'sqlite3', 'db'], 'All files': ['*'] }, ...(folder ? { defaultUri: folder } : {}) });
      if (!picked?.[0]) return undefined;
      path = folder ? vscode.workspace.asRelativePath(picked[0], false) : picked[0].fsPath;
    }
  }
  const existing = readSettings().databases;
  const suggestion = path === MEMORY ? 'scratch2' : (path.split(/[\\/]/).pop() ?? 'db').replace(/\.[^.]*$/, '').replace(/[^\w-]/g, '_');
  const name = await vscode.window.showInputBox({
    title: 'Database Name',
    prompt: `How SQL and the status bar refer to ${path === MEMORY ? 'this in-memory database' : path}`,
    value: suggestion,
    validateInput: (value) => (!NAME.test(value) ? 'Letters, digits, _ and -, starting with a letter' : existing[value] ? `"${value}" is taken` : undefined),
  });
  if (!name) return undefined;
  const target = vscode.workspace.workspaceFolders ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await vscode.workspace.getConfiguration('tollgate').update('databases', { ...existing, [name]: path }, target);
  return name;
}

/** "New Query": an untitled .sql editor against `db` (made current). */
export async function newQuery(db?: string): Promise<void> {
  if (db) await useDatabase(db);
  const document = await vscode.workspace.openTextDocument({ language: 'sql', content: `-- Runs against "${db ?? currentDatabase()}". Ctrl+Enter runs the statement under the cursor.\n` });
  await vscode.window.showTextDocument(document);
}

/** The walkthrough's first step: a sample that creates a table, fills it and reads it back. */
export async function openSample(): Promise<void> {
  const content = [
    '-- A first query. Ctrl+Shift+Enter runs the whole file; each statement gets its own result.',
    'CREATE TABLE IF NOT EXISTS fruit(name TEXT PRIMARY KEY, price REAL, stock INTEGER);',
    "INSERT OR REPLACE INTO fruit VALUES ('apple', 0.5, 120), ('pear', 0.75, 40), ('fig', 2.1, 8);",
    'SELECT name, price, stock, price * stock AS value FROM fruit ORDER BY value DESC;',
    '',
  ].join('\n');
  const document = await vscode.workspace.openTextDocument({ language: 'sql', content });
  await vscode.window.showTextDocument(document);
}
