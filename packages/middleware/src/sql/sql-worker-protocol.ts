import type { PageOp } from './page-op.js';
import type { SqlParams } from './sql-types.js';

/**
 * Messages between the SQL service and the worker that owns one database. Requests travel in arrays (those
 * of one event-loop turn together); each answer travels alone, in request order.
 */
export type WorkerRequest = { kind: 'query'; id: number; query: string; params: SqlParams | undefined; maxRows: number };

/**
 * Every answer carries the pages its request wrote to the database file (a failed one too: its rollback
 * writes the old pages back) and the file size after them; the main thread journals them in answer order.
 */
export type WorkerResponse = ({ kind: 'result'; id: number; result: QueryOutcome } | { kind: 'failed'; id: number; message: string; code: string; statementIndex?: number }) & WrittenPages;

export interface WrittenPages {
  pages?: PageOp[];
  fileSize?: number;
}

/** What one statement produced. */
export type StatementResult = { type: 'table'; column_names: string[]; data: unknown[][] } | { type: 'ok'; affected_rows: number };

/** What a query did: its last statement's result, and whether it wrote pages. */
export type QueryOutcome = StatementResult & { changed: boolean };

/** Data the worker starts with. */
export interface WorkerData {
  wasmPath: string;
  /** The last committed image of the database; null for a new one. */
  image: Uint8Array | null;
  /** sql.databases.<name>.maxDatabaseBytes: a request that would grow the file past it fails with database_full. */
  maxDatabaseBytes: number | undefined;
}
