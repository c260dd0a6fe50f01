import type { SqlResult, SqlResults } from '@tollgate/client';
import type { StatementView } from '../webview/protocol.js';
import type { SqlStatement } from './split-statements.js';

/**
 * One view per statement of a run, from the SQL endpoint's answer: `results: "all"` gives every
 * statement's result in order; a server without it answers only the last statement, shown as that one.
 * `lineOf` turns a document offset into a 1-based line.
 *
 * @example
 * statementViews([create, select], { type: 'results', results: [ok, table] }, lineOf) // two views, in order
 */
export function statementViews(statements: readonly SqlStatement[], answer: SqlResult | SqlResults, lineOf: (offset: number) => number): StatementView[] {
  const results = answer.type === 'results' ? answer.results : [answer];
  // Align from the end: a lone answer is the last statement's.
  const offset = Math.max(0, statements.length - results.length);
  return results.map((result, index) => {
    const statement = statements[offset + index];
    return {
      sql: statement?.text.trim() ?? '',
      ...(statement ? { line: lineOf(statement.start) } : {}),
      outcome: result.type === 'table' ? { kind: 'table', columns: result.column_names, ...(result.column_types ? { types: result.column_types } : {}), rows: result.data } : { kind: 'ok', affectedRows: result.affected_rows },
    };
  });
}

/** "people.sql" for a whole file, "people.sql:3 (statement)" or "people.sql:2 (selection)" for part of one. */
export function runLabel(fileName: string, source: 'selection' | 'statement' | 'file', line: number): string {
  return source === 'file' ? fileName : `${fileName}:${line} (${source})`;
}
