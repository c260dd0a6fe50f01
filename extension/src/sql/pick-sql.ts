import { splitStatements, type SqlStatement } from './split-statements.js';

/** What a "Run" runs, and the document range it came from (offsets), for diagnostics and CodeLens. */
export interface PickedSql {
  source: 'selection' | 'statement' | 'file';
  text: string;
  start: number;
  end: number;
  /** The statements inside, so a failing `context.statement_index` maps back to a range. */
  statements: SqlStatement[];
}

/**
 * The rule of "Run SQL": the selection if there is one, else the statement under the cursor, else the
 * whole file. The cursor counts as under a statement from its first character to just past its `;`.
 */
export function pickSql(document: string, selection: { start: number; end: number }, cursor: number): PickedSql {
  const selected = document.slice(selection.start, selection.end);
  if (selection.end > selection.start && selected.trim() !== '') {
    // A selection of everything (Ctrl+A) is the file: it was labelled "(selection)" (issue 18 #4).
    return within(document, selected.trim() === document.trim() ? 'file' : 'selection', selection.start, selection.end);
  }
  const statement = splitStatements(document).find((s) => cursor >= s.start && cursor <= s.end);
  if (statement) return { source: 'statement', text: statement.text, start: statement.start, end: statement.end, statements: [statement] };
  return within(document, 'file', 0, document.length);
}

function within(document: string, source: PickedSql['source'], start: number, end: number): PickedSql {
  const statements = splitStatements(document.slice(start, end)).map((s) => ({ ...s, start: s.start + start, end: s.end + start }));
  return { source, text: document.slice(start, end), start, end, statements };
}
