import { parentPort, workerData } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
import type { BindParams, Database, Statement } from 'sql.js';
import { classifySqlError } from './classify-sql-error.js';
import { initCapturingSqlJs } from './page-capture.js';
import { checkPageCapture } from './page-capture-self-test.js';
import { isTruncate, type PageOp } from './page-op.js';
import { scanPlaceholders, type Placeholders } from './scan-placeholders.js';
import type { SqlParams } from './sql-types.js';
import type { QueryOutcome, StatementResult, WorkerData, WorkerRequest, WorkerResponse } from './sql-worker-protocol.js';

/** Thrown inside a request to roll it back with a specific error code. */
class RequestFailure extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

const { wasmPath, image, maxDatabaseBytes } = workerData as WorkerData;
// Every page SQLite writes is captured and journaled by the main thread (page-journal.ts); a build whose
// capture is unknown or does not rebuild a file exactly refuses to start rather than lose writes.
const { SQL, capture } = await initCapturingSqlJs(readFileSync(wasmPath));
checkPageCapture(SQL, capture);
const db: Database = new SQL.Database(image ?? undefined);
/** The database file's size as the captured writes leave it. */
let fileSize = image?.byteLength ?? 0;
configure();
// sql.js reads the image lazily: touch the schema now so a file that is not a database fails the start.
db.exec('SELECT count(*) FROM sqlite_master');
const helpers = prepareHelpers();
capture.take(db); // opening writes nothing; whatever the checks above did is not a change

/**
 * The database lives in the worker's in-memory file system and only this worker opens it: an exclusive
 * lock and an in-memory rollback journal spare SQLite its per-transaction hot-journal checks, which were
 * file-system lookups in JavaScript and a quarter of a point select's time. Rollback works as before.
 */
function configure(): void {
  db.exec('PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = MEMORY');
  // SQLite stops a statement as soon as it needs a page past the quota (SQLITE_FULL), before it builds a huge file.
  if (maxDatabaseBytes !== undefined) db.exec(`PRAGMA max_page_count = ${Math.max(1, Math.floor(maxDatabaseBytes / pageSize()))}`);
}

function pageSize(): number {
  return db.exec('PRAGMA page_size')[0]!.values[0]![0] as number;
}

/** Statements every request runs, prepared once: parsing them per request was most of a point select's cost. */
function prepareHelpers() {
  return {
    begin: db.prepare('SAVEPOINT tollgate_request'),
    release: db.prepare('RELEASE tollgate_request'),
    fileBytes: db.prepare('SELECT page_count * page_size FROM pragma_page_count, pragma_page_size'),
  };
}

function runHelper(statement: Statement): void {
  statement.step();
  statement.reset();
}

parentPort!.on('message', (requests: WorkerRequest[]) => {
  for (const request of requests) answer(request);
});

function answer(request: WorkerRequest): void {
  let response: WorkerResponse;
  try {
    response = { kind: 'result', id: request.id, result: runRequest(request.query, request.params, request.maxRows) };
  } catch (error) {
    const code = error instanceof RequestFailure ? error.code : classifySqlError((error as Error).message);
    const { statementIndex } = error as { statementIndex?: number };
    response = { kind: 'failed', id: request.id, message: (error as Error).message, code, ...(statementIndex === undefined ? {} : { statementIndex }) };
  }
  // The capture relies on the connection's settings (configure()); a request that moved the journal mode is
  // undone here, before its pages are taken, so what it committed reaches the captured file.
  if (capture.takeSiblingWrites()) configure();
  // One answer per request, as soon as it is ready: a runaway later in the batch must not hold it back.
  const pages = capture.take(db);
  if (pages.length === 0) return void parentPort!.postMessage(response);
  // "Changed" means pages were written: PRAGMA user_version, REINDEX or ANALYZE move no counter but write.
  if (response.kind === 'result') response.result.changed = true;
  response.pages = pages;
  response.fileSize = fileSizeAfter(pages);
  parentPort!.postMessage(response, pages.map((op) => (isTruncate(op) ? undefined : (op.data.buffer as ArrayBuffer))).filter((buffer) => buffer !== undefined));
}

function fileSizeAfter(pages: PageOp[]): number {
  for (const op of pages) fileSize = isTruncate(op) ? op.truncate : Math.max(fileSize, op.offset + op.data.byteLength);
  return fileSize;
}
parentPort!.postMessage({ kind: 'ready' });

/**
 * Runs every statement of one request inside a savepoint: all of them take effect, or none does
 * (DESIGN: a failure rolls back the request's earlier changes). The last statement's result answers.
 * A kept statement that cannot write needs neither the savepoint nor the change check: SQLite runs a
 * single statement atomically, and the three helper statements were most of a point select's work.
 */
function runRequest(query: string, params: SqlParams | undefined, maxRows: number): QueryOutcome {
  const kept = statementCache.get(query);
  // `changed` before the spread: a key added after one gives every result a hidden class of its own in V8.
  // Decided before its second run, never right after a write: EXPLAIN resets changes().
  if (kept && kept.readOnly === undefined) kept.readOnly = !canWrite(query);
  if (kept?.readOnly) return { changed: false, ...runKept(kept, params, maxRows) };
  const before = maxDatabaseBytes === undefined ? 0 : fileBytes();
  runHelper(helpers.begin);
  try {
    const outcome = kept ? runKept(kept, params, maxRows) : runStatements(query, params, maxRows);
    if (maxDatabaseBytes !== undefined) refuseGrowthPastQuota(before, maxDatabaseBytes);
    runHelper(helpers.release);
    return { changed: false, ...outcome };
  } catch (error) {
    rollBackRequest();
    throw error;
  }
}

/**
 * Undoes the request. SQLite itself already rolled the whole transaction back after some errors
 * (SQLITE_FULL from the quota among them), and then the savepoint is gone: the original error is the answer.
 */
function rollBackRequest(): void {
  try {
    db.exec('ROLLBACK TO tollgate_request; RELEASE tollgate_request');
  } catch (error) {
    if (!/no such savepoint/.test((error as Error).message)) throw error;
  }
}

function runKept(kept: KeptStatement, params: SqlParams | undefined, maxRows: number): StatementResult {
  const binder = new ParamBinder(params);
  try {
    const result = runStatement(kept.statement, binder.next(kept.placeholders), maxRows);
    binder.assertAllUsed();
    return result;
  } catch (error) {
    throw tagStatement(error, 0);
  } finally {
    kept.statement.reset();
  }
}

function runStatements(query: string, params: SqlParams | undefined, maxRows: number): StatementResult {
  const binder = new ParamBinder(params);
  let last: StatementResult | undefined;
  // The statement being compiled (the iterator throws when one does not compile) or run, 0-based.
  let index = 0;
  try {
    for (const statement of db.iterateStatements(query)) {
      try {
        const sql = statement.getSQL();
        refuseTransactionControl(sql);
        last = runStatement(statement, binder.next(params === undefined ? undefined : scanPlaceholders(sql)), maxRows);
      } finally {
        statement.free();
      }
      index++;
    }
  } catch (error) {
    throw tagStatement(error, index);
  }
  binder.assertAllUsed();
  if (!last) throw new RequestFailure('The query contains no SQL statement', 'empty_query');
  if (index === 1) remember(query);
  return last;
}

/** Marks which statement (0-based) failed, so an editor can point at it. */
function tagStatement(error: unknown, statementIndex: number): unknown {
  if (error instanceof Error) Object.assign(error, { statementIndex });
  return error;
}

/**
 * Single-statement queries, prepared once by their exact text: applications send the same few queries
 * with different params, and compiling them again each time was a large share of a point select.
 */
interface KeptStatement {
  statement: Statement;
  placeholders: Placeholders;
  /**
   * Decided once from its bytecode, at its second run (undefined until then); a kept statement is
   * recompiled on schema changes, never rewritten.
   */
  readOnly: boolean | undefined;
}

const statementCache = new Map<string, KeptStatement>();
const STATEMENT_CACHE_SIZE = 64;

/** The iterator frees each statement as it moves on, so the one to keep is prepared on its own. */
function remember(query: string): void {
  let statement: Statement;
  try {
    statement = db.prepare(query);
  } catch {
    return; // DDL that now fails to compile (CREATE TABLE of the table it made): nothing worth keeping
  }
  if (statementCache.size >= STATEMENT_CACHE_SIZE) {
    const [oldest, evicted] = statementCache.entries().next().value!;
    statementCache.delete(oldest);
    evicted.statement.free();
  }
  statementCache.set(query, { statement, placeholders: scanPlaceholders(query), readOnly: undefined });
}

/**
 * Opcodes that change a database without a write `Transaction` in the same program (VACUUM) or that only
 * writes use. Not Insert or IdxInsert: reads use them too, on ephemeral tables (DISTINCT, IN subqueries).
 */
const writingOpcodes = new Set(['Vacuum', 'VUpdate', 'VCreate', 'VDestroy', 'SetCookie', 'CreateBtree', 'Destroy', 'ParseSchema']);

/**
 * What sqlite3_stmt_readonly answers, which sql.js does not export: a statement can write if its
 * program opens a write transaction (a `Transaction` with P2 ≠ 0) or uses a writing opcode. When in
 * doubt (its EXPLAIN fails), it can.
 */
function canWrite(query: string): boolean {
  let plan: Statement | undefined;
  try {
    plan = db.prepare(`EXPLAIN ${query}`);
    while (plan.step()) {
      const [, opcode, , p2] = plan.get();
      if ((opcode === 'Transaction' && p2 !== 0) || writingOpcodes.has(opcode as string)) return true;
    }
    return false;
  } catch {
    return true;
  } finally {
    plan?.free();
  }
}

const transactionControl = /^(?:\s|--[^\n]*\n|\/\*[\s\S]*?\*\/)*(BEGIN|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE)\b/i;

/** Each request already is one transaction; letting a COMMIT through would break that promise. */
function refuseTransactionControl(sql: string): void {
  if (transactionControl.test(sql)) {
    throw new RequestFailure('Each request runs as one transaction: BEGIN, COMMIT, ROLLBACK and savepoints are not needed', 'transaction_control');
  }
}

function runStatement(statement: Statement, bound: BindParams | undefined, maxRows: number): StatementResult {
  if (bound !== undefined) statement.bind(bound);
  const data: unknown[][] = [];
  let hasRow = statement.step();
  // Asked after the first step: a kept statement whose table changed shape is recompiled there.
  const columns = statement.getColumnNames();
  while (hasRow) {
    if (data.length >= maxRows) throw new RequestFailure(`The result has more than ${maxRows} rows (sql.maxRows)`, 'too_many_rows');
    data.push(rowOf(statement).map(toJsonValue));
    hasRow = statement.step();
  }
  if (columns.length > 0) return { type: 'table', column_names: columns, data };
  return { type: 'ok', affected_rows: db.getRowsModified() };
}

/** sql.js returns INTEGER columns as BigInt with `useBigInt`, which its type definitions predate. */
function rowOf(statement: Statement): unknown[] {
  return (statement.get as (params: null, config: { useBigInt: boolean }) => unknown[])(null, { useBigInt: true });
}

/** Integers beyond 2^53 become strings rather than be rounded; BLOBs become base64. */
function toJsonValue(value: unknown): unknown {
  if (typeof value === 'bigint') {
    return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(value) : value.toString();
  }
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  return value;
}

/** The database file's size inside the request's transaction. */
function fileBytes(): number {
  helpers.fileBytes.step();
  const [bytes] = helpers.fileBytes.get();
  helpers.fileBytes.reset();
  return bytes as number;
}

/**
 * The quota (sql.databases.<name>.maxDatabaseBytes), checked before the request commits so a refused
 * request changes nothing. max_page_count already stops most growth early; this also holds when a request
 * raised max_page_count itself. A file already past the quota may still shrink or stay as it is.
 */
function refuseGrowthPastQuota(before: number, limit: number): void {
  const after = fileBytes();
  if (after > limit && after > before) {
    throw new RequestFailure(`The database would grow to ${after} bytes, past its ${limit}-byte quota (sql.databases.<name>.maxDatabaseBytes); nothing was changed`, 'database_full');
  }
}

/**
 * Hands each statement the parameters it takes: positional values are consumed in order across the
 * statements (`INSERT …(?); SELECT … WHERE x = ?` takes two), named values go to every statement that
 * names them, with or without the `:`/`@`/`$` prefix.
 */
class ParamBinder {
  #offset = 0;
  readonly #named: Record<string, unknown> | undefined;

  constructor(private readonly params: SqlParams | undefined) {
    if (params && !Array.isArray(params)) {
      this.#named = {};
      for (const [key, value] of Object.entries(params)) {
        const bare = /^[:@$]/.test(key) ? key.slice(1) : key;
        for (const prefix of [':', '@', '$']) this.#named[prefix + bare] = value;
      }
    }
  }

  /** The values for the next statement, given its placeholders (undefined when the request has no params). */
  next(placeholders: Placeholders | undefined): BindParams | undefined {
    if (this.params === undefined || placeholders === undefined) return undefined;
    const { positional, named } = placeholders;
    if (Array.isArray(this.params)) {
      if (positional === 0) return undefined;
      const values = this.params.slice(this.#offset, this.#offset + positional);
      if (values.length < positional) throw new RequestFailure(`The query has more ? placeholders than the ${this.params.length} values in params`, 'parameter_mismatch');
      this.#offset += positional;
      return values as BindParams;
    }
    return named ? (this.#named as BindParams) : undefined;
  }

  assertAllUsed(): void {
    if (Array.isArray(this.params) && this.#offset !== this.params.length) {
      throw new RequestFailure(`params has ${this.params.length} values but the query has ${this.#offset} ? placeholders`, 'parameter_mismatch');
    }
  }
}
