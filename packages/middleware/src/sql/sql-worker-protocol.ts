import type { ColumnType } from './column-types.js';
import type { SqlParams } from './sql-types.js';

/**
 * Messages between the SQL service and the worker that owns one database. Requests travel in arrays (those
 * of one event-loop turn together); each answer travels alone, in request order.
 */
export type WorkerRequest =
  | { kind: 'query'; id: number; query: string; params: SqlParams | undefined; maxRows: number; limits: RequestLimits }
  | { kind: 'export'; id: number };

/** What one request may do and how large its answer may grow (README "SQL endpoint"). */
export interface RequestLimits {
  /** The key may only read this database (a `read` grant or the `sql:read` scope): no statement that can write runs. */
  readOnly: boolean;
  /** Largest answer, in bytes of its values as sent; past it the request fails with `result_too_large`. */
  maxResultBytes: number;
  /** Answer with every statement's result, not only the last one's. */
  allResults: boolean;
  /**
   * Streams the last statement's rows as NDJSON chunks instead of collecting them. `[0]` counts the chunks the
   * worker may still send: the main thread gives one back when the socket took one, so a slow client slows
   * the worker instead of filling memory.
   */
  streamCredit: Int32Array | null;
}

export type WorkerResponse =
  | { kind: 'result'; id: number; result: QueryOutcome }
  | { kind: 'rows'; id: number; text: string }
  | { kind: 'exported'; id: number; bytes: Uint8Array }
  | { kind: 'failed'; id: number; message: string; code: string; statementIndex?: number };

/** What one statement produced. `row_count` is set instead of `data` when the rows were streamed. */
export type StatementResult =
  | { type: 'table'; column_names: string[]; column_types: ColumnType[]; data: unknown[][]; row_count?: number }
  | { type: 'ok'; affected_rows: number };

/** What a query did: its last statement's result (and every one's, when asked), and whether it changed the database. */
export type QueryOutcome = StatementResult & { changed: boolean; results?: StatementResult[] };

/** Data the worker starts with. */
export interface WorkerData {
  wasmPath: string;
  /** The last committed image of the database; empty for a new one. */
  image: Uint8Array | null;
}
