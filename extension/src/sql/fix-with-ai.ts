import * as vscode from 'vscode';
import { fixPrompt, schemaText } from '../chat/sql-prompts.js';
import type { TableSchema } from '../databases/schema.js';
import { currentDatabase } from '../host/read-settings.js';
import { splitStatements } from './split-statements.js';

/** "Fix with AI" on each Tollgate diagnostic in a .sql file (issue 18 build list). */
export class FixWithAi implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  provideCodeActions(document: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): vscode.CodeAction[] {
    return context.diagnostics
      .filter((diagnostic) => diagnostic.source === 'Tollgate')
      .map((diagnostic) => {
        const action = new vscode.CodeAction('Fix with AI', vscode.CodeActionKind.QuickFix);
        action.diagnostics = [diagnostic];
        action.command = { command: 'tollgate.fixWithAi', title: 'Fix with AI', arguments: [document.uri, document.offsetAt(diagnostic.range.start), diagnostic.message] };
        return action;
      });
  }
}

/**
 * The command behind the quick fix: the statement around the error, the error and the current database's
 * schema go into the chat's composer, for the user to send (or edit first).
 */
export async function fixWithAi(uri: vscode.Uri, offset: number, error: string, deps: { schema: (db: string) => Promise<TableSchema[]>; prefill: (text: string) => Promise<void> }): Promise<void> {
  const document = await vscode.workspace.openTextDocument(uri);
  const text = document.getText();
  const statement = splitStatements(text).find((candidate) => offset >= candidate.start && offset < candidate.end);
  const db = currentDatabase();
  const tables = await deps.schema(db).catch(() => [] as TableSchema[]);
  await deps.prefill(fixPrompt(statement?.text ?? text, error, schemaText(db, tables)));
}
