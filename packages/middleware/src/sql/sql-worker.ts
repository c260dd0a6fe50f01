import { parentPort, workerData } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
import type { BindParams, Database, Statement } from 'sql.js';
import { classifySqlError } from './classify-sql-error.js';
import { HeldAnswers } from './held-answers.js';
import { initCapturingSqlJs } from './page-capture.js';
import { checkPageCapture } from './page-capture-self-test.js';
import { isTruncate, type PageOp } from './page-op.js';
import { ColumnClasses, packColumnTypes, type ColumnType } from './column-types.js';
import { DeclaredTypes } from './declared-types.js';
import { RequestFailure } from './request-failure.js';
import { ResultBudget } from './result-budget.js';
import { RowStream } from './row-stream.js';
import { scanPlaceholders, type Placeholders } from './scan-placeholders.js';
import { SQLITE_BLOB, SQLITE_NULL, SQLITE_TEXT, SqliteColumns } from './sqlite-columns.js';
import { readStatementHead, type StatementHead } from './statement-head.js';
import { checkBeforeCompile, checkCompiled } from './statement-policy.js';
import { inspectProgram } from './statement-program.js';
import type { SqlParams } from './sql-types.js';
import { wireAnswer } from './wire-answer.js';
import type { QueryOutcome, RequestLimits, StatementResult, WorkerData, WorkerRequest, WorkerResponse, WorkerRetiring } from './sql-worker-protocol.js';

const { wasmPath, image, maxDatabaseBytes, progress } = workerData as WorkerData;
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
const columns = SqliteColumns.discover(SQL, db);
const declaredTypes = new DeclaredTypes(db);

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

const held = new HeldAnswers(parentPort!, progress);

/**
 * A heap this large after a batch is no working set but what one request left behind: WebAssembly memory never
 * shrinks, so a single `SELECT length(randomblob(900000000))` kept its worker at 2 GiB for good, per database.
 * The page cache is 2 MiB and temp files live outside the heap, so ordinary requests stay far below.
 */
const RETIRE_HEAP_BYTES = 256 * 1_048_576;
/** Set once the worker said it retires: requests still on their way are run by its successor instead. */
let retiring = false;

parentPort!.on('message', (requests: WorkerRequest[]) => {
  if (retiring) return;
  for (const request of requests) {
    held.starting(request.id, predictedQuick(request));
    answer(request);
  }
  held.flush();
  if (capture.heapBytes > RETIRE_HEAP_BYTES) {
    retiring = true;
    parentPort!.postMessage({ kind: 'retiring', heapBytes: capture.heapBytes } satisfies WorkerRetiring);
  }
});

/** A kept statement that cannot write and ran quickly last time, asked for the last result without a stream. */
function predictedQuick(request: WorkerRequest): boolean {
  const kept = statementCache.get(request.query);
  return kept !== undefined && kept.quick && kept.readOnly === true && !request.limits.allResults && request.limits.streamCredit === null;
}

function answer(request: WorkerRequest): void {
  let response: WorkerResponse;
  try {
    const result = runRequest(request);
    const { jsonContext } = request;
    // The endpoint's answer as text: one string crosses instead of the result's objects (sql-service.ts queryJson).
    response = jsonContext ? { kind: 'json', id: request.id, text: JSON.stringify(wireAnswer(result, jsonContext)) } : { kind: 'result', id: request.id, result };
  } catch (error) {
    const code = error instanceof RequestFailure ? error.code : classifySqlError((error as Error).message);
    const { statementIndex } = error as { statementIndex?: number };
    response = { kind: 'failed', id: request.id, message: (error as Error).message, code, ...(statementIndex === undefined ? {} : { statementIndex }) };
  }
  if (response.kind === 'result') packTypes(response);
  // The capture relies on the connection's settings (configure()); a request that moved the journal mode is
  // undone here, before its pages are taken, so what it committed reaches the captured file.
  if (capture.takeSiblingWrites()) configure();
  // Posted now, or with the next ones while those are predicted quick (held-answers.ts): a runaway later in the
  // batch must not hold it back.
  const pages = capture.take(db);
  if (pages.length === 0) held.add(response, NO_BUFFERS);
  else {
    // "Changed" means pages were written: PRAGMA user_version, REINDEX or ANALYZE move no counter but write.
    if (response.kind === 'result') response.result.changed = true;
    response.pages = pages;
    response.fileSize = fileSizeAfter(pages);
    held.add(response, pages.map((op) => (isTruncate(op) ? undefined : (op.data.buffer as ArrayBuffer))).filter((buffer) => buffer !== undefined));
  }
  // A streamed answer's rows already left: were its final answer held and lost with this worker (a later
  // request stopped), the request would run again on the next one and send its rows a second time.
  if (request.limits.streamCredit !== null) held.flush();
}

const NO_BUFFERS: ArrayBuffer[] = [];

const NO_TYPES: ColumnType[] = [];

/** The last result's column_types cross as one flat array (column-types.ts says why); `results: "all"` as they are. */
function packTypes(response: Extract<WorkerResponse, { kind: 'result' }>): void {
  const { result } = response;
  if (result.type !== 'table' || result.results) return;
  const packed = packColumnTypes(result.column_types);
  if (!packed) return;
  response.packedTypes = packed;
  result.column_types = NO_TYPES;
}

function fileSizeAfter(pages: PageOp[]): number {
  for (const op of pages) fileSize = isTruncate(op) ? op.truncate : Math.max(fileSize, op.offset + op.data.byteLength);
  return fileSize;
}

/**
 * Runs the request path once before the worker says it is ready: V8 compiles a function when it is first
 * called, and the policy, the type tracer and the result builder cost the first request ~100 ms of that on
 * a loaded machine, all of it inside that request's timeoutMs. Reads only; the cache keeps nothing of it.
 */
function warmUp(): void {
  const limits: RequestLimits = { readOnly: true, maxResultBytes: 1_048_576, allResults: true, streamCredit: null };
  const query = "/* warm-up */ PRAGMA user_version; SELECT name, type FROM sqlite_schema WHERE name = ? ORDER BY name";
  try {
    JSON.stringify(wireAnswer(runRequest({ kind: 'query', id: 0, query, params: [''], maxRows: 1, limits, jsonContext: null }), { db: '' }));
    inspectProgram(db, 'CREATE TABLE tollgate_warm_up(x)');
  } catch {
    // Only a head start: the first real request compiles whatever this did not reach.
  }
  statementCache.clear();
}

/**
 * Runs every statement of one request inside a savepoint: all of them take effect, or none does
 * (DESIGN: a failure rolls back the request's earlier changes). The last statement's result answers.
 * A kept statement that cannot write needs neither the savepoint nor the change check: SQLite runs a
 * single statement atomically, and the three helper statements were most of a point select's work.
 */
function runRequest(request: QueryRequest): QueryOutcome {
  if (!request.limits.readOnly) return runRequestAs(request);
  // The verdict on the program misses writes a read makes from inside a function or a virtual table
  // (`SELECT * FROM pragma_optimize`, FTS `optimize()`): SQLite itself refuses them while query_only is on.
  db.exec('PRAGMA query_only = 1');
  try {
    return runRequestAs(request);
  } finally {
    db.exec('PRAGMA query_only = 0');
  }
}

function runRequestAs(request: QueryRequest): QueryOutcome {
  const { query, limits } = request;
  const kept = statementCache.get(query);
  // Decided before a run, never right after a write: an EXPLAIN resets changes().
  if (kept && kept.readOnly === undefined) kept.readOnly = !inspectProgram(db, kept.text).canWrite;
  if (kept && limits.readOnly && !kept.readOnly) throw tagStatement(refuseWrite(), 0);
  const run = new RequestRun(request);
  // `changed` before the spread: a key added after one gives every result a hidden class of its own in V8.
  // It turns true in answer() when the request wrote pages (PRAGMA user_version and ANALYZE move no counter).
  if (kept?.readOnly && !limits.allResults) {
    const started = performance.now();
    try {
      return { changed: false, ...runKept(kept, run) };
    } finally {
      kept.quick = performance.now() - started < QUICK_MS;
    }
  }
  const before = maxDatabaseBytes === undefined ? 0 : fileBytes();
  runHelper(helpers.begin);
  try {
    const outcome = kept ? runKept(kept, run) : runStatements(query, run);
    if (maxDatabaseBytes !== undefined) refuseGrowthPastQuota(before, maxDatabaseBytes);
    runHelper(helpers.release);
    return limits.allResults ? { changed: false, results: run.results, ...outcome } : { changed: false, ...outcome };
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

type QueryRequest = Extract<WorkerRequest, { kind: 'query' }>;

/** What one request's statements share: its parameters, its answer's budget and, when asked, every result. */
class RequestRun {
  readonly binder: ParamBinder;
  readonly budget: ResultBudget;
  readonly results: StatementResult[] = [];

  constructor(readonly request: QueryRequest) {
    this.binder = new ParamBinder(request.params);
    this.budget = new ResultBudget(request.limits.maxResultBytes);
  }

  get limits(): RequestLimits {
    return this.request.limits;
  }
}

function refuseWrite(): RequestFailure {
  return new RequestFailure('This key may only read this database (a "read" grant or the sql:read scope); the statement can write', 'read_only');
}

function runKept(kept: KeptStatement, run: RequestRun): StatementResult {
  try {
    kept.declared ??= declaredTypes.of(kept.text);
    const result = runStatement(kept.statement, run.binder.next(kept.placeholders), run, { keep: true, declared: kept.declared, stream: true });
    run.binder.assertAllUsed();
    if (kept.changesSchema) forgetDeclaredTypes();
    if (run.limits.allResults) run.results.push(result);
    return result;
  } catch (error) {
    throw tagStatement(error, 0);
  } finally {
    kept.statement.reset();
  }
}

/**
 * Walks the statements under the statement policy (README "Statement policy"): each one's head is read
 * from the text with SQLite's lexical rules and checked before SQLite compiles it (a PRAGMA acts while it
 * compiles), then its program is checked before it runs. `position` follows the text statement by
 * statement: sqlite3_sql gives each statement's exact text, so they add up to the query (checked).
 */
function runStatements(query: string, run: RequestRun): StatementResult {
  // SQLite compiles SQL text as a C string: past a NUL nothing runs, while the request was checked (and would be
  // answered, 200) as if all of it had.
  if (query.includes('\u0000')) throw new RequestFailure('The query contains a NUL character (U+0000), which the database does not accept in SQL text', 'syntax_error');
  const { limits } = run;
  const statements = db.iterateStatements(query);
  let last: StatementResult | undefined;
  let canWrite: boolean | undefined;
  let position = 0;
  // The statement being checked, compiled (the iterator throws when one does not compile) or run, 0-based.
  let index = 0;
  try {
    for (let head = readStatementHead(query, 0); head; index++) {
      checkBeforeCompile(head);
      const next = statements.next();
      if (next.done) break;
      const statement = next.value;
      try {
        const sql = statement.getSQL();
        if (!query.startsWith(sql, position)) throw new Error('statement text out of step with the query');
        position += sql.length;
        const text = query.slice(head.start, position);
        canWrite = checkCompiled(db, head, text, limits.readOnly);
        const following = readStatementHead(query, position);
        const bound = run.binder.next(run.request.params === undefined ? undefined : scanPlaceholders(sql));
        // Only answering statements' rows are read; the others run to their end unread.
        const keep = following === undefined || limits.allResults;
        const declared = keep && statement.getColumnNames().length > 0 ? declaredTypes.of(text) : undefined;
        last = runStatement(statement, bound, run, { keep, declared, stream: following === undefined });
        if (limits.allResults) run.results.push(last);
        if (changesSchema(head)) forgetDeclaredTypes();
        head = following;
      } finally {
        statement.free();
      }
    }
  } catch (error) {
    throw tagStatement(error, index);
  } finally {
    // The iterator holds a copy of the query in the wasm heap until it is exhausted or returned: the walk
    // stops at the last statement's end (or a failure), so return it, or each request would leak its text.
    (statements as unknown as Iterator<Statement>).return?.();
  }
  run.binder.assertAllUsed();
  if (!last) throw new RequestFailure('The query contains no SQL statement', 'empty_query');
  if (index === 1) remember(query, canWrite);
  return last;
}

/** Statements that can change a table's columns or their types (writable_schema is refused). */
const schemaKeywords = new Set(['CREATE', 'DROP', 'ALTER']);

/** Declared types are read again, also kept statements': the schema they came from may have changed. */
function forgetDeclaredTypes(): void {
  declaredTypes.forget();
  for (const kept of statementCache.values()) kept.declared = undefined;
}

function changesSchema(head: StatementHead): boolean {
  const first = head.tokens[0];
  return !head.explain && first?.kind === 'word' && schemaKeywords.has(first.text);
}

/** Marks which statement (0-based) failed, so an editor can point at it. */
function tagStatement(error: unknown, statementIndex: number): unknown {
  if (error instanceof Error) Object.assign(error, { statementIndex });
  return error;
}

/**
 * Single-statement queries, prepared once by their exact text: applications send the same few queries
 * with different params, and compiling them again each time was a large share of a point select.
 * A kept statement passed the statement policy when it first ran; SQLite recompiles it on schema changes,
 * never rewrites it, so that verdict holds.
 */
interface KeptStatement {
  statement: Statement;
  placeholders: Placeholders;
  /** Decided once from its bytecode, before a run (undefined until then, when its first run did not tell). */
  readOnly: boolean | undefined;
  /** Its text from its first token. */
  text: string;
  /** Declared types of its result columns, read again after a request that changed the schema. */
  declared: (string | null)[] | undefined;
  /** A CREATE, DROP or ALTER: each run may change the schema (`DROP TABLE IF EXISTS` sent again). */
  changesSchema: boolean;
  /** Its last read-only run took less than QUICK_MS: answers before it may wait for it (held-answers.ts). */
  quick: boolean;
}

const QUICK_MS = 0.5;

const statementCache = new Map<string, KeptStatement>();
const STATEMENT_CACHE_SIZE = 64;

/** The iterator frees each statement as it moves on, so the one to keep is prepared on its own. */
function remember(query: string, canWrite: boolean | undefined): void {
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
  const head = readStatementHead(query, 0)!;
  const text = query.slice(head.start);
  const readOnly = head.explain ? true : canWrite === undefined ? undefined : !canWrite;
  statementCache.set(query, { statement, placeholders: scanPlaceholders(query), readOnly, text, declared: undefined, changesSchema: changesSchema(head), quick: false });
}

interface RunOptions {
  /** Read its rows (an answering statement); else it only runs to its end. */
  keep: boolean;
  declared: (string | null)[] | undefined;
  /** It is the last statement: its rows go to the stream when the request asked for one. */
  stream: boolean;
}

function runStatement(statement: Statement, bound: BindParams | undefined, run: RequestRun, options: RunOptions): StatementResult {
  if (bound !== undefined) statement.bind(bound);
  let hasRow = statement.step();
  // Asked after the first step: a kept statement whose table changed shape is recompiled there.
  const names = statement.getColumnNames();
  if (names.length === 0 || !options.keep) {
    while (hasRow) hasRow = statement.step();
    if (names.length > 0) return { type: 'table', column_names: names, column_types: [], data: [] };
    return { type: 'ok', affected_rows: db.getRowsModified() };
  }
  const declared = options.declared?.length === names.length ? options.declared : undefined;
  run.budget.addColumns(names, declared);
  const classes = new ColumnClasses(declared ?? names.map(() => null));
  const credit = options.stream ? run.limits.streamCredit : null;
  if (credit) return streamRows(statement, hasRow, names, classes, run, credit);
  const { maxRows } = run.request;
  const data: unknown[][] = [];
  while (hasRow) {
    if (data.length >= maxRows) throw new RequestFailure(`The result has more than ${maxRows} rows (sql.maxRows)`, 'too_many_rows');
    data.push(readRow(statement, names.length, run.budget, classes, data));
    hasRow = statement.step();
  }
  return { type: 'table', column_names: names, column_types: classes.types(), data };
}

/**
 * NDJSON: a header line, then one line per row, posted in chunks as the main thread gives credit. Neither
 * `maxRows` nor the answer's total size bounds it, since memory does not grow with it; each row must fit
 * `maxResultBytes`.
 */
function streamRows(statement: Statement, first: boolean, names: string[], classes: ColumnClasses, run: RequestRun, credit: Int32Array): StatementResult {
  const { id } = run.request;
  const stream = new RowStream(credit, (text) => parentPort!.postMessage({ kind: 'rows', id, text } satisfies WorkerResponse));
  const declared: Pick<ColumnType, 'declared'>[] = classes.types().map(({ declared: type }) => ({ declared: type }));
  stream.line(JSON.stringify({ type: 'table', column_names: names, column_types: declared }));
  let rows = 0;
  for (let hasRow = first; hasRow; hasRow = statement.step()) {
    run.budget.reset();
    stream.line(JSON.stringify(readRow(statement, names.length, run.budget, classes, null)));
    rows++;
  }
  stream.flush();
  return { type: 'table', column_names: names, column_types: classes.types(), data: [], row_count: rows };
}

/**
 * One row, its size counted before sql.js copies a value into JavaScript: `zeroblob(300000000)` fails here
 * at once instead of being allocated, copied and base64-encoded.
 */
function readRow(statement: Statement, width: number, budget: ResultBudget, classes: ColumnClasses, rowsBefore: unknown[][] | null): unknown[] {
  const pointer = columns.pointer(statement);
  for (let column = 0; column < width; column++) {
    const type = columns.type(pointer, column);
    if (type === SQLITE_TEXT) budget.add(ResultBudget.textBytes(columns.bytes(pointer, column)));
    else if (type === SQLITE_BLOB) budget.add(ResultBudget.blobBytes(columns.bytes(pointer, column)));
    else budget.add(type === SQLITE_NULL ? ResultBudget.NULL_BYTES : ResultBudget.NUMBER_BYTES);
    classes.add(column, type, rowsBefore);
  }
  return rowOf(statement).map(toJsonValue);
}

/** sql.js returns INTEGER columns as BigInt with `useBigInt`, which its type definitions predate. */
function rowOf(statement: Statement): unknown[] {
  return (statement.get as (params: null, config: { useBigInt: boolean }) => unknown[])(null, { useBigInt: true });
}

/**
 * Integers beyond 2^53 become strings rather than be rounded; BLOBs become base64; an infinite REAL becomes
 * "Infinity" / "-Infinity" (JSON has no number for it, and null would read as NULL) — as the PostgreSQL engine
 * sends float8's. SQLite itself stores no NaN (it becomes NULL).
 */
function toJsonValue(value: unknown): unknown {
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
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
    // SQLite binds NULL to a placeholder given no value: a misspelt key (or a ? beside an object) would have set or
    // matched NULL with a 200, where the PostgreSQL kind answers parameter_mismatch.
    if (positional > 0) throw new RequestFailure('The query has ? placeholders, which take params as an array; params is an object (for :name, @name or $name)', 'parameter_mismatch');
    for (const name of placeholders.names) {
      if (!Object.hasOwn(this.#named!, name)) throw new RequestFailure(`The query names ${name} but params has no "${name.slice(1)}"`, 'parameter_mismatch');
    }
    return named ? (this.#named as BindParams) : undefined;
  }

  assertAllUsed(): void {
    if (Array.isArray(this.params) && this.#offset !== this.params.length) {
      throw new RequestFailure(`params has ${this.params.length} values but the query has ${this.#offset} ? placeholders`, 'parameter_mismatch');
    }
  }
}

// Last, once every module-level table above is initialised.
warmUp();
capture.take(db); // opening and warming up write nothing; whatever the checks above did is not a change
parentPort!.postMessage({ kind: 'ready' });
