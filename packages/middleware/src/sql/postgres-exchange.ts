import type pg from 'pg';
import { isServerGone } from './classify-sqlstate.js';
import type { PostgresStatement } from './postgres-statements.js';
import { postgresTypeParsers } from './postgres-types.js';
import { SESSION_RESET, SessionResetFailed } from './postgres-session-reset.js';
import type { SqlValue } from './sql-types.js';

/** The messages of pg's Connection an exchange writes, and the socket under it. */
interface PgWire {
  stream: { cork?(): void; uncork?(): void; destroy(): void };
  query(text: string): void;
  parse(message: { text: string; name: string }): void;
  bind(message: { portal: string; statement: string; values: readonly unknown[]; valueMapper?: (value: SqlValue) => string | null }): void;
  describe(message: { type: 'P'; name: string }): void;
  execute(message: { portal: string; rows: number }): void;
  sync(): void;
  sendCopyFail(message: string): void;
}

/** A column as PostgreSQL's row description names it. */
export interface ExchangeField {
  name: string;
  dataTypeID: number;
}

/** A statement's columns, rows (values converted) and command tag's row count, as pg's array Result has them. */
export interface StatementRows {
  fields: ExchangeField[];
  rows: unknown[][];
  rowCount: number | null;
}

/** A statement's answer: at most `limit` rows, `truncated` when PostgreSQL sent more. */
export interface BoundedResult extends StatementRows {
  truncated: boolean;
}

/** The parts of pg's Client (not in pipeline mode) an exchange is queued on. */
interface QueueingClient {
  connection: PgWire;
  _queryable: boolean;
  _ending: boolean;
  _queryQueue: Receiver[];
  _pulseQueryQueue(): void;
}

/**
 * The exchange queues its receivers on pg's Client directly (see `send`), so it depends on three of its
 * internals: checked once when a postgres database is configured, so a pg release that renamed them fails at
 * start-up with this message instead of on a request.
 */
export function assertPgClientQueue(Client: new () => unknown): void {
  const client = new Client() as Partial<QueueingClient>;
  if (Array.isArray(client._queryQueue) && typeof client._pulseQueryQueue === 'function' && typeof client._queryable === 'boolean') return;
  throw new Error("the installed 'pg' has no Client#_queryQueue/_pulseQueryQueue/_queryable, which the postgres kind queues its exchanges on: install pg 8 (8.23.1 or a later 8.x that keeps them)");
}

/** What pg's Client calls on the query whose messages arrive (pg's "submittable", as pg-cursor implements it). */
abstract class Receiver {
  #settled = false;
  /** Set on the exchange's first receiver: pg submits it first, and it writes every receiver's messages. */
  writer: Exchange | undefined;
  submit(connection: PgWire): null {
    this.writer?.write(connection);
    return null;
  }
  handleRowDescription(_message: { fields: ExchangeField[] }): void {}
  handleDataRow(_message: { fields: (string | null)[] }): void {}
  handleCommandComplete(_message: { text: string }): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}
  /** COPY … FROM STDIN (the policy refuses COPY; a function cannot run it): refused as pg.Query refuses it. */
  handleCopyInResponse(connection: PgWire): void {
    connection.sendCopyFail('No source stream defined');
  }
  /** A server error (its ReadyForQuery goes to the next receiver: pg clears the active query) or a lost connection. */
  handleError(error: Error): void {
    if (this.#settled) return;
    this.#settled = true;
    this.settle(error);
  }
  handleReadyForQuery(): void {
    if (this.#settled) return;
    this.#settled = true;
    this.settle(undefined);
  }
  protected abstract settle(error: Error | undefined): void;
}

/** COMMIT or ROLLBACK, written by the exchange: only its outcome matters. */
class OwnStatementReceiver extends Receiver {
  constructor(private readonly done: (error: Error | undefined) => void) {
    super();
  }
  protected settle(error: Error | undefined): void {
    this.done(error);
  }
}

/** A statement's columns before its row description arrived (replaced, never appended to). */
const NO_FIELDS: ExchangeField[] = Object.freeze([]) as unknown as ExchangeField[];
const NO_PARSERS: readonly ((text: string) => unknown)[] = Object.freeze([]);

/**
 * A statement's answer as it arrives. No object or array literal here: V8 may pretenure a literal's allocation
 * site when, during a cold start, a scavenge finds all its objects still waiting on PostgreSQL. Every later answer
 * was then born in the old generation and kept its young rows alive through the next scavenge, which copied and
 * promoted them, and the cascade went on into node:http's own objects. Point-select load, `--trace-gc-nvp`:
 * 357 KB promoted per scavenge (pause 1.65 ms) with `{ fields: [], rows: [], … }`, 4 KB (0.8 ms) with this class
 * and `Array.of()` (a builtin, no allocation site), as the bare pg server.
 */
class ArrivingRows implements BoundedResult {
  fields: ExchangeField[] = NO_FIELDS;
  rows: unknown[][] = Array.of();
  rowCount: number | null = null;
  truncated = false;
}

/** What closes a transaction behind its last statement. */
export type ClosingStatement = 'COMMIT' | 'ROLLBACK';

/** pg's prepareValue for the values a request can bind (contract §2.1: numbers, strings, booleans, null). */
const bindValue = (value: SqlValue): string | null => (value === null ? null : typeof value === 'string' ? value : String(value));

/** Where an exchange's statement goes and what rides with it. */
export interface ExchangePlan {
  /** The session reset (a previous request's state is on the connection: postgres-session-reset.ts) leads the Sync unit. */
  resetsAhead?: boolean;
  /** Tollgate's statements ahead of the statement in its Sync unit (the transaction's opening). */
  prefixes?: readonly string[] | undefined;
  /** COMMIT or ROLLBACK behind it, in a Sync unit of its own. */
  closing?: ClosingStatement | undefined;
  /**
   * Called once when no answer came within `afterMs` (the statement outlived the statement_timeout it started with:
   * the request turned it off with SET LOCAL or set_config(…, true)): the owner cancels the backend's statement.
   */
  overrun?: Overrun | undefined;
}

/** What an exchange does about a statement that outlived its statement_timeout (ExchangePlan.overrun). */
export interface Overrun {
  afterMs: number;
  cancel(): void;
}

const NO_PREFIXES: readonly string[] = Object.freeze([]);

/**
 * One exchange with PostgreSQL: a statement — with the session reset and the transaction's opening ahead of it
 * when they ride along, and COMMIT behind it when that does — or a transaction's COMMIT or ROLLBACK alone,
 * written in one write. Answered without pg.Query: pg builds an EventEmitter, a Result (with a keyed row
 * template), a normalized config and a promise per query, and in its pipeline mode a queue entry each; this keeps
 * the rows as arrays of converted values (at most `limit`: past them they are dropped as they arrive, memory
 * stays bounded, and the answer is too_many_rows) and settles one promise.
 *
 * The reset and the opening share the statement's Sync unit, so should either fail, PostgreSQL skips the
 * statement: it never runs on a dirty session or outside its transaction. Each Sync unit answers with its own
 * ReadyForQuery, and pg's Client (not in pipeline mode) hands each unit's messages to the receiver queued for it in
 * turn (the statement's, then COMMIT's or ROLLBACK's), so a failing statement does not skip COMMIT (PostgreSQL
 * answers a COMMIT of a failed transaction by rolling it back).
 *
 * One timer per exchange catches a hung server: past `readTimeoutMs` without its last answer the socket is
 * destroyed, which fails every receiver with pg's "Connection terminated unexpectedly" (503, isServerGone).
 */
export class Exchange extends Receiver {
  /** Settles with the statement's result (empty without one) once it and the COMMIT/ROLLBACK behind it answered. */
  readonly answer: Promise<BoundedResult>;
  readonly #result: BoundedResult = new ArrivingRows();
  readonly #statement: PostgresStatement | undefined;
  readonly #limit: number;
  readonly #resetsAhead: boolean;
  readonly #prefixes: readonly string[];
  readonly #closing: ClosingStatement | undefined;
  readonly #readTimeoutMs: number;
  readonly #overrun: Overrun | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #overrunTimer: ReturnType<typeof setTimeout> | undefined;
  #parsers: readonly ((text: string) => unknown)[] = NO_PARSERS;
  /** Command completions still to come ahead of the statement's (the reset's, the prefixes'): not the statement's. */
  #leadingAnswers: number;
  #answered!: (error: Error | undefined) => void;

  constructor(statement: PostgresStatement | undefined, limit: number, readTimeoutMs: number, plan: ExchangePlan = {}) {
    super();
    this.#statement = statement;
    this.#limit = limit;
    this.#resetsAhead = plan.resetsAhead === true;
    this.#prefixes = plan.prefixes ?? NO_PREFIXES;
    this.#leadingAnswers = this.#prefixes.length + (this.#resetsAhead ? 1 : 0);
    this.#closing = plan.closing;
    this.#readTimeoutMs = readTimeoutMs;
    this.#overrun = plan.overrun;
    this.answer = new Promise((resolve, reject) => (this.#answered = (error) => (error ? reject(error) : resolve(this.#result))));
  }

  /** Only what closes a transaction: a request whose statements all ran, or failed. */
  static closing(closing: ClosingStatement, readTimeoutMs: number, overrun?: Overrun): Exchange {
    return new Exchange(undefined, 0, readTimeoutMs, { closing, overrun });
  }

  /**
   * Queues the exchange and the receiver of the COMMIT/ROLLBACK behind it on the client, which is not in pipeline
   * mode: pg hands each Sync unit's answer to the next receiver in its queue. They go into the queue directly
   * (pg's Client.query would warn about a second query queued on a busy client), after the checks Client.query
   * makes.
   */
  send(client: pg.PoolClient): this {
    const internals = client as unknown as QueueingClient;
    if (!internals._queryable || internals._ending) {
      this.#answered(new Error('Client has encountered a connection error and is not queryable'));
      return this;
    }
    const overrun = this.#overrun;
    const overrunTimer = overrun ? setTimeout(() => overrun.cancel(), overrun.afterMs) : undefined;
    this.#overrunTimer = overrunTimer;
    const timer = setTimeout(() => internals.connection.stream.destroy(), this.#readTimeoutMs);
    this.#timer = timer;
    const queue = internals._queryQueue;
    if (this.#statement) {
      this.writer = this;
      queue.push(this);
    }
    if (this.#closing) {
      const closing = new OwnStatementReceiver((error) => {
        clearTimeout(timer);
        clearTimeout(overrunTimer);
        this.#answered(error);
      });
      if (!this.#statement) closing.writer = this; // the first receiver pg submits writes every Sync unit
      queue.push(closing);
    }
    internals._pulseQueryQueue();
    return this;
  }

  /** The statement's Sync unit (if any), then COMMIT/ROLLBACK (if any) as a simple Query, in one write. */
  write(wire: PgWire): void {
    wire.stream.cork?.();
    try {
      if (this.#statement) this.#writeStatement(wire, this.#statement);
      if (this.#closing) wire.query(this.#closing);
    } finally {
      wire.stream.uncork?.();
    }
  }

  /**
   * A simple Query for a lone text without values and without `;` (what a bare pg server sends), else
   * Parse/Bind/Execute for the reset and each prefix, Parse/Bind/Describe/Execute for the statement, and one Sync:
   * PostgreSQL itself refuses a text holding more than one statement there, so the scanner's split is never the
   * only guard, and its grammar separates statements only by `;`. Should the reset or a prefix fail, PostgreSQL
   * skips the rest up to the Sync.
   */
  #writeStatement(wire: PgWire, { text, values }: PostgresStatement): void {
    if (this.#leadingAnswers === 0 && values.length === 0 && !text.includes(';')) {
      wire.query(text);
      return;
    }
    if (this.#resetsAhead) writeOwn(wire, SESSION_RESET);
    for (const prefix of this.#prefixes) writeOwn(wire, prefix);
    wire.parse({ text, name: '' });
    wire.bind({ portal: '', statement: '', values, valueMapper: bindValue });
    wire.describe({ type: 'P', name: '' });
    wire.execute({ portal: '', rows: 0 });
    wire.sync();
  }

  override handleRowDescription(message: { fields: ExchangeField[] }): void {
    const { fields } = message;
    const parsers = new Array<(text: string) => unknown>(fields.length);
    for (let i = 0; i < fields.length; i++) parsers[i] = postgresTypeParsers.getTypeParser(fields[i]!.dataTypeID);
    this.#result.fields = fields;
    this.#parsers = parsers;
  }

  /** Rows past the limit are dropped as they arrive: memory stays bounded, the answer is too_many_rows. */
  override handleDataRow(message: { fields: (string | null)[] }): void {
    if (this.#leadingAnswers > 0) return; // a prefix's row (SELECT 1), sent without a description
    const rows = this.#result.rows;
    if (rows.length >= this.#limit) {
      this.#result.truncated = true;
      return;
    }
    const raw = message.fields;
    const parsers = this.#parsers;
    const row = new Array<unknown>(raw.length);
    for (let i = 0; i < raw.length; i++) {
      const value = raw[i];
      row[i] = value === null || value === undefined ? null : parsers[i]!(value);
    }
    rows.push(row);
  }

  override handleCommandComplete(message: { text: string }): void {
    if (this.#leadingAnswers > 0) {
      this.#leadingAnswers--;
      return;
    }
    this.#result.rowCount = rowCountOf(message.text);
  }

  /** A server's error ahead of the reset's completion is the reset's own: the session is in a state nobody knows. */
  override handleError(error: Error): void {
    const resetFailed = this.#resetsAhead && this.#leadingAnswers === this.#prefixes.length + 1 && !isServerGone(error);
    super.handleError(resetFailed ? new SessionResetFailed(error) : error);
  }

  /** With COMMIT behind it, a failed statement answers at once (its error) and a passed one once COMMIT passed. */
  protected settle(error: Error | undefined): void {
    if (!this.#closing) {
      clearTimeout(this.#timer);
      clearTimeout(this.#overrunTimer);
    }
    if (error || !this.#closing) this.#answered(error);
  }
}

/** One of Tollgate's own statements ahead of the request's, in its Sync unit. */
function writeOwn(wire: PgWire, text: string): void {
  wire.parse({ text, name: '' });
  wire.bind({ portal: '', statement: '', values: [] });
  wire.execute({ portal: '', rows: 0 });
}

/** The row count of a command tag (`SELECT 3`, `INSERT 0 1`, `UPDATE 2`), as pg's Result reads it; null without one. */
function rowCountOf(tag: string): number | null {
  const space = tag.lastIndexOf(' ');
  if (space < 0) return null;
  const count = Number(tag.slice(space + 1));
  return Number.isInteger(count) ? count : null;
}
