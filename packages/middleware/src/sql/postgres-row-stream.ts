import type pg from 'pg';
import Cursor from 'pg-cursor';
import type { CancelSignal } from '../http/client-departure.js';
import type { ColumnType } from './column-types.js';
import { isServerGone } from './classify-sqlstate.js';
import { postgresTypeName, postgresTypeParsers, storageOfPostgres } from './postgres-types.js';
import type { PostgresStatement } from './postgres-statements.js';
import { ResultBudget } from './result-budget.js';
import type { StatementResult } from './sql-worker-protocol.js';
import type { Overrun } from './postgres-exchange.js';

/** Rows per Execute of the portal: one batch is all a stream holds besides the chunks waiting for credit. */
const BATCH_ROWS = 500;
/** Text gathered before it is handed to the endpoint, as the sql.js kind's worker chunks it (row-stream.ts). */
const CHUNK_CHARS = 64 * 1024;
/** How long one wait for credit lasts before the client's departure and the deadline are looked at again. */
const WAIT_SLICE_MS = 50;

/** Node ≥ 16 has it; TypeScript's lib has it from es2024 on. */
const waitAsync = (Atomics as unknown as { waitAsync(array: Int32Array, index: number, value: number, timeoutMs: number): { value: Promise<string> | string } }).waitAsync;

export interface RowStreamTarget {
  credit: Int32Array;
  onRows: (text: string) => void;
  signal: CancelSignal | undefined;
  /** performance.now() after which a client that does not read ends the stream (sql.streamTimeoutMs). */
  deadline: number;
  /** A batch not answered within this is a hung server (503), not a slow statement (statement_timeout is shorter). */
  readTimeoutMs: number;
  /** A batch not answered within its statement_timeout (turned off by the request): the owner cancels it. */
  overrun?: Overrun | undefined;
  /** Errors the stream's owner renders (cancelled, stream timeout); kept there so both kinds say the same. */
  cancelled: () => Error;
  tooSlow: () => Error;
}

/**
 * The postgres kind's NDJSON (README "Streamed answers"): the last statement runs through a portal (pg-cursor:
 * Parse/Bind/Execute with a row limit, inside the request's transaction) and each batch is fetched only once
 * the previous one has gone out to the client as credit allowed, so neither maxRows nor memory bounds the
 * result: a slow reader slows PostgreSQL's executor, a million rows hold one batch. Each row must fit
 * `maxResultBytes`, as on the sql.js kind. A statement without rows answers `ok` with its row count.
 */
export async function streamPostgresRows(client: pg.PoolClient, statement: PostgresStatement, maxRowBytes: number, target: RowStreamTarget): Promise<StatementResult> {
  const cursor = client.query(new Cursor(statement.text, statement.values, { rowMode: 'array', types: postgresTypeParsers }));
  const out = new CreditedText(target);
  let serverGone = false;
  try {
    let { rows, result } = await readBatch(cursor, target.readTimeoutMs, target.overrun);
    if (result.fields.length === 0) return { type: 'ok', affected_rows: result.rowCount ?? 0 };
    const oids = result.fields.map((field) => field.dataTypeID);
    const column_names = result.fields.map((field) => field.name);
    const column_types: ColumnType[] = oids.map((oid) => ({ declared: postgresTypeName(oid), storage: null }));
    await out.line(JSON.stringify({ type: 'table', column_names, column_types: column_types.map(({ declared }) => ({ declared })) }));
    const budget = new ResultBudget(maxRowBytes);
    let row_count = 0;
    for (;;) {
      for (const row of rows) {
        budget.reset();
        noteRow(row as unknown[], oids, column_types, budget);
        await out.line(JSON.stringify(row));
      }
      row_count += rows.length;
      if (rows.length < BATCH_ROWS) break;
      ({ rows } = await readBatch(cursor, target.readTimeoutMs, target.overrun));
    }
    await out.flush();
    return { type: 'table', column_names, column_types, data: [], row_count };
  } catch (error) {
    serverGone = isServerGone(error);
    throw error;
  } finally {
    // Closing the portal answers at once unless the server is hung; then the connection is dropped instead.
    if (!serverGone) await cursor.close();
  }
}

function readBatch(cursor: Cursor, timeoutMs: number, overrun: Overrun | undefined): Promise<{ rows: unknown[]; result: pg.QueryResult }> {
  return new Promise((resolve, reject) => {
    // Same text as pg's own query_timeout, so isServerGone() reads both alike.
    const timer = setTimeout(() => reject(new Error('Query read timeout')), timeoutMs);
    const overrunTimer = overrun ? setTimeout(() => overrun.cancel(), overrun.afterMs) : undefined;
    cursor.read(BATCH_ROWS, (error, rows, result) => {
      clearTimeout(timer);
      clearTimeout(overrunTimer);
      if (error) reject(error);
      else resolve({ rows, result });
    });
  });
}

/** Sizes each value against the per-row budget and keeps each column's storage class (`mixed` if it varies). */
function noteRow(row: unknown[], oids: number[], types: ColumnType[], budget: ResultBudget): void {
  for (let column = 0; column < row.length; column++) {
    const value = row[column];
    if (value === null) {
      budget.add(ResultBudget.NULL_BYTES);
      continue;
    }
    budget.add(typeof value === 'string' ? ResultBudget.textBytes(Buffer.byteLength(value)) : ResultBudget.NUMBER_BYTES);
    const type = types[column]!;
    const storage = storageOfPostgres(oids[column]!, value);
    if (type.storage === null) type.storage = storage;
    else if (type.storage !== storage) type.storage = 'mixed';
  }
}

/** Lines gathered into ~64 KiB chunks; a chunk leaves only against credit the endpoint returns as the socket takes it. */
class CreditedText {
  #pending = '';

  constructor(private readonly target: RowStreamTarget) {}

  async line(json: string): Promise<void> {
    this.#pending += json + '\n';
    if (this.#pending.length >= CHUNK_CHARS) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.#pending === '') return;
    const { credit, signal } = this.target;
    while (Atomics.load(credit, 0) <= 0) {
      if (signal?.aborted) throw this.target.cancelled();
      if (performance.now() > this.target.deadline) throw this.target.tooSlow();
      await waitAsync(credit, 0, 0, WAIT_SLICE_MS).value;
    }
    Atomics.sub(credit, 0, 1);
    this.target.onRows(this.#pending);
    this.#pending = '';
  }
}
