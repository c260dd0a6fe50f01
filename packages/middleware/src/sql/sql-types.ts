import type { ColumnType } from './column-types.js';

/** A query as the SQL endpoint receives it (DESIGN "SQL endpoint"). */
export interface SqlQuery {
  query: string;
  /** `?` placeholders bind from an array, `:name`/`@name`/`$name` from an object. */
  params?: SqlParams;
  /** Database name; the configured default when absent. */
  db?: string;
  /** Answer with every statement's result (`type: "results"`), not only the last one's. */
  allResults?: boolean;
}

export type SqlValue = number | string | null | boolean;
export type SqlParams = SqlValue[] | Record<string, SqlValue>;

/** One statement's answer: contract §2.2 shapes. `affected_rows` and `column_types` are Tollgate's additions. */
export type SqlStatementResult =
  | { type: 'ok'; context: { db: string }; affected_rows?: number }
  | { type: 'table'; column_names: string[]; column_types: ColumnType[]; data: unknown[][]; context: { db: string } };

/** The answer: the last statement's result, or, when asked for, every statement's (`type: "results"`). */
export type SqlResult = SqlStatementResult | { type: 'results'; results: SqlStatementResult[]; context: { db: string } };

/** A streamed answer's end: the last statement's result without its rows (they went to the stream). */
export type SqlStreamEnd =
  | { type: 'ok'; context: { db: string }; affected_rows?: number }
  | { type: 'table'; row_count: number; column_types: ColumnType[]; context: { db: string } };
