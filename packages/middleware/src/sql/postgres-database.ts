import pg from 'pg';
import { ServiceError } from '../errors/index.js';
import type { CancelSignal } from '../http/client-departure.js';
import { classifySqlstate, isServerGone } from './classify-sqlstate.js';
import { streamPostgresRows } from './postgres-row-stream.js';
import { postgresTypeName, postgresTypeParsers, storageOfPostgres } from './postgres-types.js';
import { assertPgClientQueue, Exchange, type BoundedResult, type ExchangePlan, type Overrun, type StatementRows } from './postgres-exchange.js';
import { PostgresStatementPlans } from './postgres-statement-plans.js';
import { sendOwnStatement } from './postgres-own-statement.js';
import { resetSession, SessionResetFailed, SessionResets } from './postgres-session-reset.js';
import type { PostgresStatement } from './postgres-statements.js';
import { OrganizationShares } from './organization-shares.js';
import { RequestFailure } from './request-failure.js';
import { ResultBudget } from './result-budget.js';
import type { QueryOptions } from './sql-database.js';
import type { SqlEngine } from './sql-engine.js';
import type { QueryOutcome, StatementResult } from './sql-worker-protocol.js';
import type { SqlParams } from './sql-types.js';
import type { ColumnType } from './column-types.js';

export interface PostgresDatabaseOptions {
  name: string;
  url: string;
  poolMax: number;
  /** How long a connection a request left may sit idle before its session is reset in the background. */
  idleResetMs: number;
  timeoutMs: number;
  maxRows: number;
  /** Connections one organization may hold at once; undefined: all of them (one organization reaches it). */
  perOrganization?: number;
}

const guarded = new WeakSet<pg.PoolClient>();

/**
 * How much longer than its statement_timeout the client waits for an answer before it calls the server hung
 * (SIGSTOPped, a frozen VM, a dead network path): PostgreSQL's own timeout answers first when the server lives.
 */
const HUNG_SERVER_GRACE_MS = 2_000;
/** TCP keepalive probes start after this idle time, so a peer that vanished without a FIN is noticed. */
const KEEPALIVE_DELAY_MS = 10_000;

/** Statements that answer rows and cannot write by themselves: one of them alone runs without BEGIN/COMMIT. */
const READING_KEYWORDS = new Set(['SELECT', 'VALUES', 'TABLE', 'SHOW']);
/** Writes that answer no rows without RETURNING: nothing can refuse their answer after PostgreSQL committed them. */
const PLAIN_WRITE_KEYWORDS = new Set(['INSERT', 'UPDATE', 'DELETE']);
/** A transaction's opening statements (#opening). */
const WRITING_OPENING: readonly string[] = ['BEGIN'];
const READ_ONLY_OPENING: readonly string[] = ['BEGIN READ ONLY', 'SELECT 1'];

/**
 * PostgreSQL runs a lone statement atomically, so a writer's lone read, or a lone write that cannot answer rows
 * (no RETURNING anywhere in its text, strings included: a false alarm only costs the BEGIN/COMMIT), needs no
 * BEGIN/COMMIT: one round trip instead of three.
 */
function runsAlone(statement: PostgresStatement): boolean {
  if (READING_KEYWORDS.has(statement.keyword)) return true;
  return PLAIN_WRITE_KEYWORDS.has(statement.keyword) && !/returning/i.test(statement.text);
}

/**
 * A database kept by a PostgreSQL server (`sql.databases.<name>.kind: "postgres"`, README "PostgreSQL"), so
 * several Tollgate instances share it. A `pg` pool sized by `pool.max`; each connection starts with
 * `statement_timeout = timeoutMs`, so PostgreSQL itself stops a runaway and the connection is reused.
 *
 * A request is one transaction: `BEGIN` (`READ ONLY` for a read grant or `sql:read`), its statements in order,
 * `COMMIT`; any failure rolls all of it back. A writer's lone SELECT, or lone INSERT/UPDATE/DELETE without
 * RETURNING, skips BEGIN/COMMIT (PostgreSQL runs a single statement atomically): one round trip (runsAlone).
 * At most `maxRows + 1` rows are kept (Exchange), so a huge result is refused without being held.
 */
export class PostgresDatabase implements SqlEngine {
  readonly #pool: pg.Pool;
  readonly #plans = new PostgresStatementPlans();
  readonly #sessions: SessionResets;
  readonly #shares: OrganizationShares | undefined;

  constructor(private readonly options: PostgresDatabaseOptions) {
    assertPgClientQueue(pg.Client);
    // Fail fast when the server is away: a refused connection fails at once, an unanswered one within this.
    const connectWaitMs = Math.min(options.timeoutMs, 5_000);
    this.#shares = options.perOrganization === undefined ? undefined : new OrganizationShares(options.perOrganization, connectWaitMs, options.name);
    this.#pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolMax,
      connectionTimeoutMillis: connectWaitMs,
      statement_timeout: options.timeoutMs,
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
      application_name: `tollgate:${options.name}`,
      types: postgresTypeParsers,
    });
    // An idle connection the server closed (a restart) is dropped by the pool; the next request opens a new one.
    this.#pool.on('error', () => undefined);
    this.#sessions = new SessionResets(options.idleResetMs, options.timeoutMs + HUNG_SERVER_GRACE_MS);
  }

  async ready(): Promise<void> {
    const client = await this.#connect();
    client.release();
  }

  async query(query: string, params: SqlParams | undefined, signal: CancelSignal | undefined, options: QueryOptions): Promise<QueryOutcome> {
    const statements = this.#statements(query, params);
    // Counted against its organization's share of the pool from before it asks the pool until its connection is back.
    const org = this.#shares && options.org;
    if (org) {
      const waiting = this.#shares!.take(org);
      if (waiting) await waiting;
    }
    try {
      return await this.#run(statements, signal, options);
    } catch (error) {
      // The reset ahead of the first statement failed, so nothing of this request ran, and that connection is
      // closed: the request runs once more, on another. A request can leave its session so that the next reset
      // fails (a 1 ms statement_timeout and many temporary tables to drop); another request must not pay for it.
      if (!(error instanceof ServiceError && error.cause instanceof SessionResetFailed)) throw error;
      return await this.#run(statements, signal, options);
    } finally {
      if (org) this.#shares!.give(org);
    }
  }

  /** The request on one pooled connection. */
  async #run(statements: PostgresStatement[], signal: CancelSignal | undefined, options: QueryOptions): Promise<QueryOutcome> {
    if (signal?.aborted) throw this.#cancelledError();
    const { limits } = options;
    const client = await this.#connect();
    // A previous request's session state is on the connection: the reset leads this request's first Sync unit.
    let resetsAhead = this.#sessions.take(client);
    // Awaited before the connection goes back to the pool: a late cancel must not stop the next request's statement.
    let cancelling: Promise<void> | undefined;
    const cancel = () => void (cancelling = this.#cancelBackend(client));
    signal?.once('abort', cancel);
    let broken: Error | undefined;
    const alone = statements.length === 1 && !limits.readOnly && !limits.streamCredit && runsAlone(statements[0]!);
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs;
    const readTimeoutMs = timeoutMs + HUNG_SERVER_GRACE_MS;
    // A statement that outlived its statement_timeout (the request turned it off: SET LOCAL statement_timeout = 0,
    // set_config(…, true)) is cancelled on the server before the hung-server timeout drops the socket, which
    // would leave the backend running it with its locks and its connection slot: answered as statement_timeout.
    // The cancel is a departing client's (#cancelBackend), not awaited: a hung server answers neither, and the
    // connection is dropped after an overrun anyway.
    let overran = false;
    const overrun: Overrun = {
      afterMs: timeoutMs + HUNG_SERVER_GRACE_MS / 2,
      cancel: () => {
        if (overran) return;
        overran = true;
        void this.#cancelBackend(client);
      },
    };
    let index = 0;
    let outcome: QueryOutcome;
    // The last exchange (a lone statement, COMMIT) went out: the transaction is over, nothing to roll back.
    let closed = false;
    const opening = alone ? undefined : this.#opening(limits.readOnly, timeoutMs);
    // The opening rides with the first statement (unless that one is streamed through a cursor) in one Sync unit,
    // a round trip fewer: should the opening fail, PostgreSQL skips the statement too, so it never runs outside
    // the transaction (with separate Syncs it would run in autocommit: committed alone, or able to write on a
    // read-only request).
    const openingRides = !(statements.length === 1 && limits.streamCredit);
    // And its last statement goes out with COMMIT behind it: a read-only transaction has nothing to commit, so an
    // answer refused afterwards (too_many_rows, result_too_large) undoes nothing.
    const commitRides = limits.readOnly && !limits.streamCredit;
    try {
      if (opening && !openingRides) {
        // A streamed lone statement: its opening is a query of its own, which the reset cannot share (PostgreSQL
        // refuses DISCARD ALL inside a multi-statement Query), so the reset goes out alone, first.
        if (resetsAhead) await resetSession(client, readTimeoutMs);
        resetsAhead = false;
        await sendOwnStatement(client, opening.join('; '), readTimeoutMs);
      }
      const budget = new ResultBudget(limits.maxResultBytes);
      const results: StatementResult[] = [];
      let answer: StatementResult | undefined;
      for (; index < statements.length; index++) {
        const statement = statements[index]!;
        const final = index === statements.length - 1;
        // The first statement's Sync unit carries the reset and the opening when they ride.
        const leads = index === 0;
        const plan: ExchangePlan = { resetsAhead: leads && resetsAhead, prefixes: leads && openingRides ? opening : undefined, overrun };
        if (final && limits.streamCredit) answer = await streamPostgresRows(client, statement, limits.maxResultBytes, this.#streamTarget(limits.streamCredit, options, signal, readTimeoutMs, overrun));
        else if (alone || (final && commitRides)) {
          // One submittable writes it (behind the reset and its opening, with COMMIT behind it when that rides) and
          // reads their answers without a pg.Query each (postgres-exchange.ts).
          closed = true;
          plan.closing = commitRides ? 'COMMIT' : undefined;
          const result = await new Exchange(statement, this.options.maxRows + 1, readTimeoutMs, plan).send(client).answer;
          answer = this.#answerOf(result, true, budget);
        } else answer = await this.#runStatement(client, statement, final || limits.allResults, budget, readTimeoutMs, plan);
        if (limits.allResults) results.push(answer);
      }
      if (!alone && !commitRides) {
        closed = true;
        await Exchange.closing('COMMIT', readTimeoutMs, overrun).send(client).answer;
      }
      // The last result becomes the outcome (no copy per request: README "performance rule"); with every result
      // asked for, a copy, so the outcome is not an element of its own `results`.
      if (limits.allResults) outcome = { changed: false, results, ...answer! };
      else {
        outcome = answer as QueryOutcome;
        outcome.changed = false;
      }
    } catch (error) {
      // A hung server would not answer a ROLLBACK either, and a session whose reset failed is in a state nobody
      // knows: the connection is dropped, which rolls back.
      if (isServerGone(error) || error instanceof SessionResetFailed) broken = error as Error;
      else if (!closed) await Exchange.closing('ROLLBACK', readTimeoutMs).send(client).answer.catch((rollbackError: Error) => (broken = rollbackError));
      throw this.#failure(error, signal?.aborted === true, index, overran, options.timeoutMs);
    } finally {
      signal?.off('abort', cancel);
      // The cancel may land after the statement ended (on the COMMIT, or on the next request's statement).
      if (overran) broken ??= new Error('statement overran its statement_timeout; cancelled');
      if (cancelling) {
        await cancelling;
        broken ??= new Error('cancelled'); // a cancel may land after the statement ended: drop the connection
      }
      // A connection whose state is unknown (the rollback or the reset failed, the server went away) is closed, not
      // reused; any other rejoins the pool, its session to be reset by its next taker (postgres-session-reset.ts).
      if (broken) client.release(broken);
      else this.#sessions.release(client);
    }
    return outcome;
  }

  /**
   * BEGIN, and SET LOCAL statement_timeout only for a limit other than the session's: every connection starts
   * with `statement_timeout = timeoutMs` and DISCARD ALL restores it before every next request (a connection whose
   * reset failed is closed), so only a stream's `streamTimeoutMs` needs it.
   *
   * A read grant or `sql:read` gets `BEGIN READ ONLY` and then a query, which locks the mode: PostgreSQL lets a
   * transaction turn read-write (`SET TRANSACTION READ WRITE`, `SET LOCAL transaction_read_only = off`) until its
   * first snapshot, and both are statements a request may send.
   */
  #opening(readOnly: boolean, timeoutMs: number): readonly string[] {
    const begin = readOnly ? READ_ONLY_OPENING : WRITING_OPENING;
    return timeoutMs === this.options.timeoutMs ? begin : [...begin, `SET LOCAL statement_timeout = ${timeoutMs}`];
  }

  #streamTarget(credit: Int32Array, options: QueryOptions, signal: CancelSignal | undefined, readTimeoutMs: number, overrun: Overrun) {
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs;
    return {
      credit,
      onRows: (text: string) => options.onRows?.(text),
      signal,
      deadline: performance.now() + timeoutMs,
      readTimeoutMs,
      overrun,
      cancelled: () => this.#cancelledError(),
      tooSlow: () => this.#sqlError(`The client read the stream for longer than ${timeoutMs} ms (sql.streamTimeoutMs)`, 'statement_timeout'),
    };
  }

  async close(): Promise<void> {
    this.#sessions.close();
    await this.#pool.end();
  }

  #statements(query: string, params: SqlParams | undefined): PostgresStatement[] {
    let statements: PostgresStatement[];
    try {
      statements = this.#plans.statements(query, params);
    } catch (error) {
      throw this.#failure(error, false, (error as { statementIndex?: number }).statementIndex);
    }
    if (statements.length === 0) throw this.#sqlError('The query contains no SQL statement', 'empty_query');
    return statements;
  }

  /** A statement of a transaction, on its own Sync unit (the reset and its opening ahead of it when they ride). */
  async #runStatement(client: pg.PoolClient, statement: PostgresStatement, answering: boolean, budget: ResultBudget, readTimeoutMs: number, plan: ExchangePlan): Promise<StatementResult> {
    const result = await new Exchange(statement, this.options.maxRows + 1, readTimeoutMs, plan).send(client).answer;
    return this.#answerOf(result, answering, budget);
  }

  /** A statement's answer: `ok` without columns, else its table (only the columns for a statement not answering). */
  #answerOf(result: BoundedResult, answering: boolean, budget: ResultBudget): StatementResult {
    const { maxRows } = this.options;
    if (result.fields.length === 0) return { type: 'ok', affected_rows: result.rowCount ?? 0 };
    if (!answering) return { type: 'table', column_names: result.fields.map((field) => field.name), column_types: [], data: [] };
    if (result.truncated || result.rows.length > maxRows) throw new RequestFailure(`The result has more than ${maxRows} rows (sql.maxRows)`, 'too_many_rows');
    return tableOf(result, budget);
  }

  async #connect(): Promise<pg.PoolClient> {
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      throw this.#unavailable(error);
    }
    // The pool listens for errors only on idle connections: a server that goes away while this one is checked
    // out would otherwise crash the process. Its query fails on its own (503), and release(error) drops it.
    if (!guarded.has(client)) {
      guarded.add(client);
      client.on('error', () => undefined);
    }
    return client;
  }

  /**
   * Cancels the backend's running statement (`pg_cancel_backend` on a connection of its own): it stops with 57014
   * and the transaction rolls back; the connection itself stays usable.
   */
  async #cancelBackend(client: pg.PoolClient): Promise<void> {
    const { processID } = client as unknown as { processID: number };
    const canceller = new pg.Client({ connectionString: this.options.url, connectionTimeoutMillis: 5_000 });
    try {
      await canceller.connect();
      await canceller.query('SELECT pg_cancel_backend($1)', [processID]);
    } catch {
      // The server is away: the statement is gone with it.
    } finally {
      await canceller.end().catch(() => undefined);
    }
  }

  #failure(error: unknown, cancelled: boolean, statementIndex: number | undefined, overran = false, streamTimeoutMs?: number): ServiceError {
    if (error instanceof ServiceError) return error;
    if (error instanceof RequestFailure) return this.#sqlError(error.message, error.code, statementIndex);
    if (isServerGone(error) || error instanceof SessionResetFailed) return this.#unavailable(error);
    const { code: sqlstate, message } = error as { code?: string; message: string };
    if (cancelled) return this.#cancelledError();
    const classified = classifySqlstate(sqlstate, message);
    // Our own cancel of a statement that outlived its statement_timeout (#run's overrun).
    const code = overran && classified === 'cancelled' ? 'statement_timeout' : classified;
    // Answered as the sql.js kind answers a runaway: the request was stopped, not one statement refused.
    // A stream runs under its own limit (options.timeoutMs: sql.streamTimeoutMs), and is told so.
    const limit = streamTimeoutMs === undefined ? `${this.options.timeoutMs} ms (sql.timeoutMs)` : `${streamTimeoutMs} ms (sql.streamTimeoutMs)`;
    if (code === 'statement_timeout') return this.#sqlError(`The statement ran longer than ${limit} and was stopped; the transaction was rolled back`, code);
    return this.#sqlError(message, code, statementIndex);
  }

  #sqlError(message: string, code: string, statementIndex?: number): ServiceError {
    const at = statementIndex === undefined ? {} : { statement_index: statementIndex };
    return new ServiceError('sql_error', message, { code, context: { db: this.options.name, ...at } });
  }

  #unavailable(error: unknown): ServiceError {
    return new ServiceError('database_unavailable', `Database "${this.options.name}" (PostgreSQL) cannot be reached (${(error as Error).message}); retry in a few seconds`, { context: { db: this.options.name }, cause: error });
  }

  #cancelledError(): ServiceError {
    return new ServiceError('sql_error', 'The client went away; the statement was stopped and its changes rolled back', { code: 'cancelled', context: { db: this.options.name } });
  }
}

/** Rows as the wire shows them (values already converted by postgresTypeParsers), their sizes budgeted. */
function tableOf(result: StatementRows, budget: ResultBudget): StatementResult {
  const { fields, rows } = result;
  const column_names = fields.map((field) => field.name);
  budget.addColumns(column_names, undefined);
  const column_types: ColumnType[] = fields.map((field) => ({ declared: postgresTypeName(field.dataTypeID), storage: null }));
  for (let row = 0; row < rows.length; row++) {
    const values = rows[row]!;
    for (let column = 0; column < values.length; column++) {
      const value = values[column];
      budget.add(valueBytes(value));
      if (value === null) continue;
      const type = column_types[column]!;
      const storage = storageOfPostgres(fields[column]!.dataTypeID, value);
      if (type.storage === null && !type.storage_by_row) type.storage = storage;
      else if (type.storage !== storage) markMixed(type, column, rows, fields[column]!.dataTypeID);
    }
  }
  return { type: 'table', column_names, column_types, data: rows };
}

function markMixed(type: ColumnType, column: number, rows: unknown[][], oid: number): void {
  type.storage = 'mixed';
  type.storage_by_row = rows.map((values) => (values[column] === null ? null : storageOfPostgres(oid, values[column])));
}

function valueBytes(value: unknown): number {
  if (value === null) return ResultBudget.NULL_BYTES;
  if (typeof value === 'string') return ResultBudget.textBytes(Buffer.byteLength(value));
  return ResultBudget.NUMBER_BYTES;
}
