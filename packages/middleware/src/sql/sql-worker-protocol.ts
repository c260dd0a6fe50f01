import type { SqlParams } from './sql-types.js';

/**
 * Messages between the SQL service and the worker that owns one database. Requests travel in arrays (those
 * of one event-loop turn together); each answer travels alone, in request order.
 */
export type WorkerRequest =
  | { kind: 'query'; id: number; query: string; params: SqlParams | undefined; maxRows: number }
  | { kind: 'export'; id: number };

export type WorkerResponse =
  | { kind: 'result'; id: number; result: QueryOutcome }
  | { kind: 'exported'; id: number; bytes: Uint8Array }
  | { kind: 'failed'; id: number; message: string; code: string; statementIndex?: number };

/** What one statement produced. */
export type StatementResult = { type: 'table'; column_names: string[]; data: unknown[][] } | { type: 'ok'; affected_rows: number };

/** What a query did: its last statement's result, and whether it changed the database. */
export type QueryOutcome = StatementResult & { changed: boolean };

/** Data the worker starts with. */
export interface WorkerData {
  wasmPath: string;
  /** The last committed image of the database; empty for a new one. */
  image: Uint8Array | null;
}
