import type { SqlStatement } from './split-statements.js';

/**
 * Where a failed run's error belongs, as document offsets: the statement the SQL endpoint named
 * (`context.statement_index`), narrowed to the token SQLite quotes in `near "…"` when it appears
 * once in that statement.
 */
export function errorRange(statements: SqlStatement[], statementIndex: number | undefined, message: string): { start: number; end: number } | undefined {
  const statement = statements[statementIndex ?? (statements.length === 1 ? 0 : -1)];
  if (!statement) return undefined;
  const near = /near "([^"]+)"/.exec(message)?.[1];
  if (near) {
    const at = statement.text.indexOf(near);
    if (at !== -1 && statement.text.indexOf(near, at + 1) === -1) return { start: statement.start + at, end: statement.start + at + near.length };
  }
  return { start: statement.start, end: statement.end };
}
