// TEMPORARY seam: the SQL helper replaces this with the worker-backed service.
import type { SqlConfig } from '../config/index.js';
import type { SqlQuery, SqlResult } from './sql-types.js';
export type { SqlQuery, SqlResult } from './sql-types.js';
export class SqlService {
  static async open(_config: SqlConfig, _options: { baseDir: string }): Promise<SqlService> {
    return new SqlService();
  }
  async query(_q: SqlQuery, _signal?: AbortSignal): Promise<SqlResult> {
    throw new Error('sql not wired yet');
  }
  async close(): Promise<void> {}
}
