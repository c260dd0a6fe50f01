import * as vscode from 'vscode';
import { splitStatements } from './split-statements.js';

/** Past this many statements a file is data, not a script: no lenses, "Run SQL File" still works. */
const MAX_LENSES = 1000;

/** A "Run" lens above each statement of a `.sql` document. */
export class SqlCodeLens implements vscode.CodeLensProvider {
  readonly #changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.#changed.event;

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const statements = splitStatements(document.getText());
    if (statements.length > MAX_LENSES) return [];
    return statements.map((statement) => {
      const range = new vscode.Range(document.positionAt(statement.start), document.positionAt(statement.end));
      return new vscode.CodeLens(range, { title: '$(play) Run', tooltip: 'Run this statement', command: 'tollgate.runRange', arguments: [document.uri, statement.start, statement.end] });
    });
  }
}
