import { createRequire } from 'node:module';
import { dirname, extname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SqlConfig } from '../config/index.js';
import { ServiceError } from '../errors/index.js';
import { ensurePrivateDir } from '../files/index.js';
import type { CancelSignal } from '../http/client-departure.js';
import { AccessGrants, type SqlCaller } from './access-grants.js';
import { JournaledFileStore } from './journaled-file-store.js';
import { MemoryStore } from './memory-store.js';
import type { JournalEvent, PageJournalOptions } from './page-journal.js';
import { poolShare } from './organization-shares.js';
import { PostgresDatabase } from './postgres-database.js';
import { SqlDatabase } from './sql-database.js';
import type { SqlEngine } from './sql-engine.js';
import type { SqlQuery, SqlResult, SqlStreamEnd } from './sql-types.js';
import { wireAnswer } from './wire-answer.js';

/** Chunks of about 64 KiB a streamed answer may have in flight between the worker and the socket. */
const STREAM_CREDIT = 4;

export interface SqlServiceOptions {
  baseDir: string;
  wasmPath?: string;
  workerUrl?: URL;
  /** Crash tests mark their kills with the journal's moments (checkpoints, boot recovery). */
  onJournalEvent?: (event: JournalEvent) => void;
  /** Metrics hooks of a file database's journal, by database name (README "Operating"). */
  journalHooks?: (database: string) => Pick<PageJournalOptions, 'onGroupCommit' | 'onCheckpoint'>;
  /** Schedules the retry of a failed boot; tests inject a clock. */
  scheduleRetry?: (retry: () => void, delayMs: number) => () => void;
  /** The configured organizations: a PostgreSQL pool that several of them reach is shared out (organization-shares.ts). */
  organizations?: readonly string[];
}

/**
 * The SQL endpoint's engine: the configured named databases, each an SqlEngine — sql.js in its own worker, or
 * a PostgreSQL server — behind the same checks (size, grants) and the same answer shapes.
 *
 * @example
 * const sql = await SqlService.open(config.sql, { baseDir: process.cwd() });
 * await sql.query({ query: 'SELECT 1 AS one' }); // { type: 'table', column_names: ['one'], data: [[1]], context: { db: 'main' } }
 */
export class SqlService {
  private constructor(
    private readonly databases: Map<string, SqlEngine>,
    private readonly config: SqlConfig,
    private readonly grants = new AccessGrants(config.databases),
  ) {}

  static async open(config: SqlConfig, options: SqlServiceOptions): Promise<SqlService> {
    const wasmPath = options.wasmPath ?? createRequire(import.meta.url).resolve('sql.js/dist/sql-wasm.wasm');
    // The worker sits beside this module: .ts under tsx, .js once built.
    const workerUrl = options.workerUrl ?? new URL(`./sql-worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url);
    const grants = new AccessGrants(config.databases);
    const reaching = (db: string) => (config.auth ? (options.organizations ?? []).filter((org) => grants.accessOf(db, { org, readOnlyScope: false }) !== undefined).length : 0);
    const databases = new Map<string, SqlEngine>(
      Object.entries(config.databases).map(([name, db]) => {
        if (db.kind === 'postgres') {
          const perOrganization = poolShare(db.pool.max, reaching(name));
          return [name, new PostgresDatabase({ name, url: db.url, poolMax: db.pool.max, idleResetMs: db.pool.idleResetMs, timeoutMs: config.timeoutMs, maxRows: config.maxRows, perOrganization })];
        }
        const file = db.file ? resolve(options.baseDir, db.file) : undefined;
        if (file) ensurePrivateDir(dirname(file));
        const store = file ? new JournaledFileStore(file, { segmentBytes: config.journalSegmentBytes, onEvent: options.onJournalEvent, ...options.journalHooks?.(name) }) : new MemoryStore();
        const database = new SqlDatabase({ name, store, wasmPath, workerUrl, timeoutMs: config.timeoutMs, maxRows: config.maxRows, maxDatabaseBytes: db.maxDatabaseBytes, scheduleRetry: options.scheduleRetry });
        return [name, database];
      }),
    );
    const service = new SqlService(databases, config, grants);
    // Each database's first boot has run (or failed: it answers 503 and retries by itself) before open resolves.
    await Promise.allSettled([...databases.values()].map((db) => db.ready()));
    return service;
  }

  /** Resolves once every database is loaded; rejects with the first one's 503 database_unavailable if not. */
  async ready(): Promise<void> {
    await Promise.all([...this.databases.values()].map((db) => db.ready()));
  }

  /**
   * Runs one request for `caller` (undefined when `sql.auth` is off). A database the caller's organization
   * was not granted answers exactly like one that does not exist.
   */
  async query(request: SqlQuery, client?: CancelSignal, caller?: SqlCaller): Promise<SqlResult> {
    const { name, database, readOnly } = this.#open(request, caller);
    const limits = { readOnly, maxResultBytes: this.config.maxResultBytes, allResults: request.allResults === true, streamCredit: null };
    return wireAnswer(await database.query(request.query, request.params, client, { limits, org: caller?.org }), { db: name });
  }

  /**
   * Runs one request and answers with the endpoint's JSON text, the same as `JSON.stringify(await query(…))`.
   * A sql.js database builds the text in its worker, so the main thread only writes bytes: carrying the
   * answer's objects across the thread boundary and serializing them was a share of a point select's cost.
   */
  async queryJson(request: SqlQuery, client?: CancelSignal, caller?: SqlCaller): Promise<string> {
    const { name, database, readOnly } = this.#open(request, caller);
    const limits = { readOnly, maxResultBytes: this.config.maxResultBytes, allResults: request.allResults === true, streamCredit: null };
    const context = { db: name };
    if (database.queryJson) return database.queryJson(request.query, request.params, client, { limits, org: caller?.org }, context);
    return JSON.stringify(wireAnswer(await database.query(request.query, request.params, client, { limits, org: caller?.org }), context));
  }

  /**
   * Runs one request and streams its last statement's rows as NDJSON text to `onRows`: a header line, then a
   * line per row, in chunks of about 64 KiB. The worker sends a chunk only while it holds credit; `onRows`
   * gets a `release` to call once the chunk left (the socket took it), which gives one back.
   */
  async stream(request: SqlQuery, client: CancelSignal | undefined, caller: SqlCaller | undefined, onRows: (text: string, release: () => void) => void): Promise<SqlStreamEnd> {
    const { name, database, readOnly } = this.#open(request, caller);
    const credit = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
    credit[0] = STREAM_CREDIT;
    const release = () => {
      Atomics.add(credit, 0, 1);
      Atomics.notify(credit, 0);
    };
    const limits = { readOnly, maxResultBytes: this.config.maxResultBytes, allResults: false, streamCredit: credit };
    const outcome = await database.query(request.query, request.params, client, { limits, org: caller?.org, onRows: (text) => onRows(text, release), timeoutMs: this.config.streamTimeoutMs });
    const context = { db: name };
    if (outcome.type === 'ok') return { type: 'ok', affected_rows: outcome.affected_rows, context };
    return { type: 'table', row_count: outcome.row_count ?? 0, column_types: outcome.column_types, context };
  }

  /** Databases without an `access` grant: every organization may write them. */
  ungrantedDatabases(): string[] {
    return this.grants.ungranted();
  }

  #open(request: SqlQuery, caller: SqlCaller | undefined): { name: string; database: SqlEngine; readOnly: boolean } {
    if (Buffer.byteLength(request.query) > this.config.maxStatementBytes) {
      throw new ServiceError('request_too_large', `The statement is larger than ${this.config.maxStatementBytes} bytes (sql.maxStatementBytes)`);
    }
    const name = request.db ?? this.config.default;
    const access = this.grants.accessOf(name, caller);
    const database = this.databases.get(name);
    if (!database || !access) {
      // The same answer for a database that exists but is not granted: its name tells nothing to another tenant.
      const reaches = `this key reaches: ${this.grants.visibleTo(caller).join(', ') || 'none'}`;
      // Nor is the default's name told to a key that may not use it.
      if (request.db === undefined) throw new ServiceError('sql_error', `No database named in context.db, and this key does not reach the default one; ${reaches}`, { code: 'unknown_database', context: {} });
      throw new ServiceError('sql_error', `Unknown database "${name}"; ${reaches}`, { code: 'unknown_database', context: { db: name } });
    }
    return { name, database, readOnly: access === 'read' };
  }

  async close(): Promise<void> {
    await Promise.all([...this.databases.values()].map((db) => db.close()));
  }
}
