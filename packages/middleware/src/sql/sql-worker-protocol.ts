import type { ColumnType, PackedColumnTypes } from './column-types.js';
import type { PageOp } from './page-op.js';
import type { SqlParams } from './sql-types.js';

/**
 * Messages between the SQL service and the worker that owns one database. Requests travel in arrays (a batch:
 * worker-outbox.ts); final answers travel in arrays too, in request order (held-answers.ts), streamed
 * `rows` chunks alone.
 */
export type WorkerRequest = {
  kind: 'query';
  id: number;
  query: string;
  params: SqlParams | undefined;
  maxRows: number;
  limits: RequestLimits;
  /** Set: a success answers `json` with the wire's JSON text (wire-answer.ts) in this context. */
  jsonContext: { db: string } | null;
};

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

/**
 * Every final answer carries the pages its request wrote to the database file (a failed one too: its rollback
 * writes the old pages back) and the file size after them; the main thread journals them in answer order.
 * Streamed `rows` chunks come before their request's final answer and carry no pages.
 */
export type WorkerResponse =
  | (({ kind: 'result'; id: number; result: QueryOutcome; /** Its column_types packed for the crossing (column-types.ts), then left empty. */ packedTypes?: PackedColumnTypes } | { kind: 'json'; id: number; text: string } | { kind: 'failed'; id: number; message: string; code: string; statementIndex?: number }) & WrittenPages)
  | { kind: 'rows'; id: number; text: string };

/**
 * Sent after a batch that left the worker's wasm heap past its limit (sql-worker.ts RETIRE_HEAP_BYTES): the
 * worker answers nothing more, and the main thread replaces it with one loaded from the store.
 */
export interface WorkerRetiring {
  kind: 'retiring';
  heapBytes: number;
}

export interface WrittenPages {
  pages?: PageOp[];
  fileSize?: number;
}

/** What one statement produced. `row_count` is set instead of `data` when the rows were streamed. */
export type StatementResult =
  | { type: 'table'; column_names: string[]; column_types: ColumnType[]; data: unknown[][]; row_count?: number }
  | { type: 'ok'; affected_rows: number };

/** What a query did: its last statement's result (and every one's, when asked), and whether it wrote pages. */
export type QueryOutcome = StatementResult & { changed: boolean; results?: StatementResult[] };

/** Data the worker starts with. */
export interface WorkerData {
  wasmPath: string;
  /** The last committed image of the database; null for a new one. */
  image: Uint8Array | null;
  /** sql.databases.<name>.maxDatabaseBytes: a request that would grow the file past it fails with database_full. */
  maxDatabaseBytes: number | undefined;
  /** `[0]`: the id (as int32) of the request the worker runs now, for the watchdog (held-answers.ts). */
  progress: Int32Array;
}
