/** A query as the SQL endpoint receives it (DESIGN "SQL endpoint"). */
export interface SqlQuery {
  query: string;
  /** `?` placeholders bind from an array, `:name`/`@name`/`$name` from an object. */
  params?: SqlParams;
  /** Database name; the configured default when absent. */
  db?: string;
}

export type SqlValue = number | string | null | boolean;
export type SqlParams = SqlValue[] | Record<string, SqlValue>;

/** Contract §2.2 result shapes. `affected_rows` is Tollgate's addition on `ok` for writes. */
export type SqlResult =
  | { type: 'ok'; context: { db: string }; affected_rows?: number }
  | { type: 'table'; column_names: string[]; data: unknown[][]; context: { db: string } };
