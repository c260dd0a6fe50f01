import { createRequire } from 'node:module';
import { dirname, extname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SqlConfig } from '../config/index.js';
import { ServiceError } from '../errors/index.js';
import { ensurePrivateDir } from '../files/index.js';
import type { CancelSignal } from '../http/client-departure.js';
import { JournaledFileStore } from './journaled-file-store.js';
import { MemoryStore } from './memory-store.js';
import type { JournalEvent } from './page-journal.js';
import { SqlDatabase } from './sql-database.js';
import type { SqlQuery, SqlResult } from './sql-types.js';

export interface SqlServiceOptions {
  baseDir: string;
  wasmPath?: string;
  workerUrl?: URL;
  /** Crash tests mark their kills with the journal's moments (checkpoints, boot recovery). */
  onJournalEvent?: (event: JournalEvent) => void;
  /** Schedules the retry of a failed boot; tests inject a clock. */
  scheduleRetry?: (retry: () => void, delayMs: number) => () => void;
}

/**
 * The SQL endpoint's engine: the configured named databases, each in its own worker.
 *
 * @example
 * const sql = await SqlService.open(config.sql, { baseDir: process.cwd() });
 * await sql.query({ query: 'SELECT 1 AS one' }); // { type: 'table', column_names: ['one'], data: [[1]], context: { db: 'main' } }
 */
export class SqlService {
  private constructor(
    private readonly databases: Map<string, SqlDatabase>,
    private readonly defaultDb: string,
    private readonly maxStatementBytes: number,
  ) {}

  static async open(config: SqlConfig, options: SqlServiceOptions): Promise<SqlService> {
    const wasmPath = options.wasmPath ?? createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm');
    // The worker sits beside this module: .ts under tsx, .js once built.
    const workerUrl = options.workerUrl ?? new URL(`./sql-worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url);
    const databases = new Map(
      Object.entries(config.databases).map(([name, db]) => {
        const file = db.file ? resolve(options.baseDir, db.file) : undefined;
        if (file) ensurePrivateDir(dirname(file));
        const store = file ? new JournaledFileStore(file, { segmentBytes: config.journalSegmentBytes, onEvent: options.onJournalEvent }) : new MemoryStore();
        const database = new SqlDatabase({ name, store, wasmPath, workerUrl, timeoutMs: config.timeoutMs, maxRows: config.maxRows, maxDatabaseBytes: db.maxDatabaseBytes, scheduleRetry: options.scheduleRetry });
        return [name, database] as const;
      }),
    );
    const service = new SqlService(databases, config.default, config.maxStatementBytes);
    // Each database's first boot has run (or failed: it answers 503 and retries by itself) before open resolves.
    await Promise.allSettled([...databases.values()].map((db) => db.ready()));
    return service;
  }

  /** Resolves once every database is loaded; rejects with the first one's 503 database_unavailable if not. */
  async ready(): Promise<void> {
    await Promise.all([...this.databases.values()].map((db) => db.ready()));
  }

  async query(request: SqlQuery, client?: CancelSignal): Promise<SqlResult> {
    if (Buffer.byteLength(request.query) > this.maxStatementBytes) {
      throw new ServiceError('request_too_large', `The statement is larger than ${this.maxStatementBytes} bytes (sql.maxStatementBytes)`);
    }
    const name = request.db ?? this.defaultDb;
    const database = this.databases.get(name);
    if (!database) {
      throw new ServiceError('sql_error', `Unknown database "${name}"; configured: ${[...this.databases.keys()].join(', ')}`, { code: 'unknown_database', context: { db: name } });
    }
    const outcome = await database.query(request.query, request.params, client);
    const context = { db: name };
    if (outcome.type === 'table') return { type: 'table', column_names: outcome.column_names, data: outcome.data, context };
    return { type: 'ok', affected_rows: outcome.affected_rows, context };
  }

  async close(): Promise<void> {
    await Promise.all([...this.databases.values()].map((db) => db.close()));
  }
}
