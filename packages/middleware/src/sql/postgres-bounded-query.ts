import pg from 'pg';
import type { PostgresStatement } from './postgres-statements.js';

/** The messages of pg's Connection a prefix is written with. */
interface PgConnection {
  parse(message: { text: string; name: string }): void;
  bind(message: { portal: string; statement: string; values: unknown[] }): void;
  execute(message: { portal: string; rows: number }): void;
}

interface PgResult {
  rows: unknown[];
  fields: unknown[];
  _parsers: unknown[] | undefined;
  /** The client's type parsers (pg.Pool's `types`: postgresTypeParsers), set by Client.query. */
  _types: { getTypeParser(oid: number, format: string): unknown };
  constructor: new (rowMode: string, types: undefined) => PgResult;
}

/** The parts of pg's Query (pg/lib/query.js, pg/lib/result.js) BoundedQuery sets up for array rows. */
interface PgQueryInternals {
  _rowMode: string | undefined;
  _result: PgResult;
  _results: PgResult;
  _accumulateRows: boolean;
  text: string;
  values: unknown[];
}

/**
 * A query that keeps at most `limit` rows: past them the server's rows are dropped as they arrive (memory stays
 * bounded; statement_timeout bounds the time), and the result is refused as too_many_rows. PostgreSQL itself
 * refuses a text that holds more than one statement, so the scanner's split is never the only guard: a text
 * with values or with a `;` anywhere (strings and comments included) goes through the extended protocol, which
 * takes one statement; a text without values and without any `;` is sent as a simple Query (what a bare pg
 * server sends; one message instead of five), since PostgreSQL's grammar separates statements only by `;`.
 * (Asking pg for `rows` pages instead would cost a round trip per statement: it sends Sync only after the
 * command completes.)
 */
export class BoundedQuery extends (pg.Query as unknown as new (text: string, values: unknown[], callback: (error: Error | null, result: pg.QueryArrayResult) => void) => PgQueryInternals) {
  truncated = false;
  /** Read by pg's Client.query: past it the query fails with 'Query read timeout' (a hung server). */
  readonly query_timeout: number;
  readonly #limit: number;
  readonly #done: Promise<pg.QueryArrayResult>;
  readonly #prefixes: readonly string[] | undefined;
  /** Command completions of the prefixes still to come: their rows and tags are not this query's result. */
  #prefixAnswers: number;

  constructor(statement: PostgresStatement, limit: number, readTimeoutMs: number, prefixes: readonly string[] | undefined) {
    let settle!: (error: Error | null, result: pg.QueryArrayResult) => void;
    // The text, not a config object: pg copies a config object descriptor by descriptor (cloneQueryConfig), a
    // string it does not. Rows as arrays is that config's `rowMode: 'array'`, set on the query's first result.
    super(statement.text, statement.values, (error, result) => settle(error, result));
    this._rowMode = 'array';
    this._result = this._results = new this._result.constructor('array', undefined);
    this.#limit = limit;
    this.#prefixes = prefixes;
    this.#prefixAnswers = prefixes?.length ?? 0;
    this.query_timeout = readTimeoutMs;
    this.#done = new Promise((resolve, reject) => (settle = (error, result) => (error ? reject(error) : resolve(result))));
  }

  requiresPreparation(): boolean {
    return this.#prefixes !== undefined || this.values.length > 0 || this.text.includes(';');
  }

  /**
   * Tollgate's own statements (`prefixes`: a transaction's opening) as Parse/Bind/Execute ahead of the statement's,
   * before its one Sync: an error in any of them makes PostgreSQL skip the rest up to the Sync.
   */
  prepare(connection: PgConnection): void {
    for (const text of this.#prefixes ?? []) {
      connection.parse({ text, name: '' });
      connection.bind({ portal: '', statement: '', values: [] });
      connection.execute({ portal: '', rows: 0 });
    }
    (pg.Query.prototype as unknown as { prepare(connection: PgConnection): void }).prepare.call(this, connection);
  }

  handleCommandComplete(message: unknown, connection: PgConnection): void {
    if (this.#prefixAnswers > 0) {
      this.#prefixAnswers--;
      return;
    }
    (pg.Query.prototype as unknown as { handleCommandComplete(message: unknown, connection: PgConnection): void }).handleCommandComplete.call(this, message, connection);
  }

  /**
   * pg's Result.addFields also builds a keyed empty row object (for rows as objects) on every description; rows
   * as arrays need only each column's parser. One statement answers (the extended protocol takes one; a simple
   * Query is sent only for a text without `;`): one result, so pg's multi-result step (_checkForMultirow) has
   * nothing to do here.
   */
  handleRowDescription(message: { fields: { dataTypeID: number }[] }): void {
    const result = this._result;
    const { fields } = message;
    const parsers = new Array<unknown>(fields.length);
    for (let i = 0; i < fields.length; i++) parsers[i] = result._types.getTypeParser(fields[i]!.dataTypeID, 'text');
    result.fields = fields;
    result._parsers = parsers;
    this._accumulateRows = true;
  }

  handleDataRow(message: unknown): void {
    if (this.#prefixAnswers > 0) return; // a prefix's row (SELECT 1), sent without a description
    if (this._result.rows.length >= this.#limit) {
      this.truncated = true;
      return;
    }
    (pg.Query.prototype as unknown as { handleDataRow(message: unknown): void }).handleDataRow.call(this, message);
  }

  run(client: pg.PoolClient): Promise<pg.QueryArrayResult> {
    client.query(this as unknown as pg.Submittable);
    return this.#done;
  }
}
