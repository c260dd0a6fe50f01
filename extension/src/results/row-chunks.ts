import type { ResultsState, SqlStorage, StatementOutcome, StatementView } from '../webview/protocol.js';

/**
 * Rows cross to the results view in chunks of this many: the first with the run, the rest as the view asks
 * for them, so a large result never travels as one message (issue 18 #5). The view keeps only the rows in
 * sight in the DOM (virtualised).
 */
export const CHUNK_ROWS = 2000;

/** Rows per table kept over a window reload: workspace state is no place for whole results. */
export const RESTORED_ROWS = 200;

/**
 * Statement sections a run is posted (and kept over a reload) with at most: its first and last halves, each
 * marked with its place in the run. The view draws a section, and a grid for each table, per statement: a `.sql`
 * file of 100,000 statements run whole posted 13 MB and drew 100,000 grids. The last ones are where a script
 * usually ends on its answer; rows and exports are asked for by place, so every shown statement keeps them.
 */
export const SHOWN_STATEMENTS = 200;

type TableOutcome = Extract<StatementOutcome, { kind: 'table' }>;

/** One table outcome cut to rows [0, limit): `totalRows` keeps the size of the whole result. */
function cutTable(outcome: TableOutcome, limit: number): TableOutcome {
  const totalRows = outcome.totalRows ?? outcome.rows.length;
  if (outcome.rows.length <= limit) return outcome.totalRows === undefined ? { ...outcome, totalRows } : outcome;
  const types = outcome.types?.map((type) => (type.storage_by_row ? { ...type, storage_by_row: type.storage_by_row.slice(0, limit) } : type));
  return { ...outcome, rows: outcome.rows.slice(0, limit), totalRows, ...(types ? { types } : {}) };
}

function cutRun(run: ResultsState, limit: number): ResultsState {
  if (run.kind !== 'done') return run;
  const statements = shownStatements(run.statements).map((statement) => (statement.outcome.kind === 'table' ? { ...statement, outcome: cutTable(statement.outcome, limit) } : statement));
  return { ...run, statements, ...(statements.length < run.statements.length ? { totalStatements: run.statements.length } : {}) };
}

/** A run's statements, or past SHOWN_STATEMENTS its first and last halves, each with its place. */
function shownStatements(statements: readonly StatementView[]): readonly StatementView[] {
  if (statements.length <= SHOWN_STATEMENTS) return statements;
  const half = SHOWN_STATEMENTS / 2;
  const placed = (from: number, to: number) => statements.slice(from, to).map((statement, offset) => ({ ...statement, index: from + offset }));
  return [...placed(0, half), ...placed(statements.length - half, statements.length)];
}

/**
 * A run as it is posted to the view: each table's first chunk of rows and its total.
 *
 * @example firstChunks(run with 5000 rows).statements[0].outcome // { rows: (2000 rows), totalRows: 5000, … }
 */
export function firstChunks(run: ResultsState, size = CHUNK_ROWS): ResultsState {
  return cutRun(run, size);
}

/**
 * Rows [from, from + size) of a kept run's statement, with their storage classes when the column mixes
 * them; `end` once the rows kept here are exhausted (a restored run keeps only its first chunk).
 */
export function rowsChunk(run: ResultsState | undefined, statement: number, from: number, size = CHUNK_ROWS): { rows: unknown[][]; storageByRow: (SqlStorage[] | undefined)[]; end: boolean } {
  const outcome = run?.kind === 'done' ? run.statements[statement]?.outcome : undefined;
  if (outcome?.kind !== 'table' || from < 0) return { rows: [], storageByRow: [], end: true };
  const to = from + size;
  return {
    rows: outcome.rows.slice(from, to),
    storageByRow: (outcome.types ?? []).map((type) => type.storage_by_row?.slice(from, to)),
    end: to >= outcome.rows.length,
  };
}

/**
 * What is kept in workspace state for a window reload: finished runs only (a queued or running one ended
 * with the old extension host), each table cut to its first RESTORED_ROWS rows so the state stays small. The view tells
 * the user that the rest is gone and that running again brings it back.
 */
export function restorableRuns(runs: readonly ResultsState[], size = RESTORED_ROWS): ResultsState[] {
  return runs.filter((run) => run.kind === 'done' || run.kind === 'error' || run.kind === 'cancelled').map((run) => ({ ...cutRun(run, size), restored: true }));
}
