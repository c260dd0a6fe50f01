import type { CancelSignal } from '../http/client-departure.js';
import type { QueryOptions } from './sql-database.js';
import type { QueryOutcome } from './sql-worker-protocol.js';
import type { SqlParams } from './sql-types.js';

/**
 * One configured database as SqlService sees it, whatever runs it: sql.js in a worker (`SqlDatabase`) or a
 * PostgreSQL server (`PostgresDatabase`). SqlService does the endpoint's shared part (size limit, grants,
 * the answer's shape) once and dispatches here; an engine answers with the same outcomes and ServiceErrors.
 */
export interface SqlEngine {
  /** Resolves once the database can serve; rejects with 503 database_unavailable when it cannot (yet). */
  ready(): Promise<void>;
  /** Runs one request as one transaction: every statement or none; the last one's result answers. */
  query(query: string, params: SqlParams | undefined, client: CancelSignal | undefined, options: QueryOptions): Promise<QueryOutcome>;
  /** The same as `query`, answered with the wire's JSON text (SqlService.queryJson); engines without it are serialized by the service. */
  queryJson?(query: string, params: SqlParams | undefined, client: CancelSignal | undefined, options: QueryOptions, context: { db: string }): Promise<string>;
  close(): Promise<void>;
}
