import assert from 'node:assert/strict';
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postJson, startGateway, TEST_KEY, type RunningGateway } from '../../support/gateway.js';

// Long enough that a loaded CI machine answers every ordinary statement in time; the runaway tests wait for it.
const RUNAWAY_TIMEOUT_MS = 1500;
const MODELS_ONLY_KEY = 'tg-models-only-0001-0123456789abcdef';

describe('POST /api/sql/query', () => {
  let gateway: RunningGateway;
  let dir: string;
  const sql = (body: unknown, key = TEST_KEY) => postJson(`${gateway.url}/api/sql/query`, body, key ? { authorization: `Bearer ${key}` } : {});
  // Sent in chunks without a content-length, so the limit is found while reading, not from the headers.
  const chunkedPost = (text: string) =>
    new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = request(`${gateway.url}/api/sql/query`, { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked', authorization: `Bearer ${TEST_KEY}` } }, (res) => {
        let data = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (data += chunk)).on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(data) }));
      });
      req.on('error', reject);
      for (let at = 0; at < text.length; at += 8_192) req.write(text.slice(at, at + 8_192));
      req.end();
    });
  const count = async (table = 't') => (await sql({ query: `SELECT count(*) AS n FROM ${table}` })).body.data[0][0] as number;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-sql-'));
    gateway = await startGateway(
      {
        keys: [
          { key: TEST_KEY, org: 'acme' },
          { key: MODELS_ONLY_KEY, org: 'acme', scopes: ['models'] },
        ],
        organizations: { acme: {} },
        sql: { databases: { main: {}, disk: { file: 'disk.sqlite' } }, default: 'main', maxRows: 50, timeoutMs: RUNAWAY_TIMEOUT_MS, maxStatementBytes: 4096 },
      },
      { baseDir: dir },
    );
    await sql({ query: 'CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)' });
  });
  afterEach(async () => {
    await gateway.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers type table with column names, rows and context.db', async () => {
    await sql({ query: "INSERT INTO t(name) VALUES ('ada'), ('grace')" });
    const { status, body } = await sql({ query: 'SELECT id, name FROM t ORDER BY id' });
    assert.equal(status, 200);
    assert.deepEqual(body, { type: 'table', column_names: ['id', 'name'], column_types: [{ declared: 'INTEGER', storage: 'integer' }, { declared: 'TEXT', storage: 'text' }], data: [[1, 'ada'], [2, 'grace']], context: { db: 'main' } });
  });

  it('answers type table also when no row matches', async () => {
    const { body } = await sql({ query: "SELECT name FROM t WHERE name = 'nobody'" });
    assert.deepEqual(body, { type: 'table', column_names: ['name'], column_types: [{ declared: 'TEXT', storage: null }], data: [], context: { db: 'main' } });
  });

  it('answers type ok with affected_rows for a write', async () => {
    const { body } = await sql({ query: "INSERT INTO t(name) VALUES ('a'), ('b'), ('c')" });
    assert.deepEqual(body, { type: 'ok', affected_rows: 3, context: { db: 'main' } });
  });

  it('runs several statements in order and answers with the last one', async () => {
    const { body } = await sql({ query: "INSERT INTO t(name) VALUES ('x'); UPDATE t SET name = 'y'; SELECT name FROM t" });
    assert.deepEqual(body.data, [['y']]);
  });

  it('binds ? placeholders from an array, across statements, and :name from an object', async () => {
    await sql({ query: 'INSERT INTO t(name) VALUES (?); INSERT INTO t(name) VALUES (?)', params: ["O'Brien; DROP TABLE t", 'second'] });
    const named = await sql({ query: 'SELECT name FROM t WHERE name = :name', params: { name: "O'Brien; DROP TABLE t" } });
    assert.deepEqual(named.body.data, [["O'Brien; DROP TABLE t"]]);
    assert.equal(await count(), 2);
  });

  it('answers 400 parameter_mismatch, changing nothing, for a named placeholder params has no value for, or a ? beside named params', async () => {
    await sql({ query: "INSERT INTO t(name) VALUES ('kept')" });
    for (const body of [
      { query: 'UPDATE t SET name = :name WHERE id = :id', params: { nme: 'typo', id: 1 } },
      { query: "INSERT INTO t(name) VALUES ('a'); UPDATE t SET name = @name", params: { id: 1 } },
      { query: 'DELETE FROM t WHERE id = ?', params: { id: 1 } },
    ]) {
      for (let run = 0; run < 2; run++) {
        // Twice: the second run of a one-statement text takes its kept, prepared statement.
        const { status, body: answer } = await sql(body);
        assert.deepEqual([status, answer.error_code], [400, 'parameter_mismatch'], JSON.stringify(body));
      }
    }
    assert.deepEqual((await sql({ query: 'SELECT id, name FROM t' })).body.data, [[1, 'kept']]);
    const bound = await sql({ query: 'SELECT :a AS a, @a AS same, $b AS b', params: { ':a': 1, b: 2, unused: 3 } });
    assert.deepEqual(bound.body.data, [[1, 1, 2]]);
  });

  it('keeps integers beyond 2^53 exact as strings, BLOBs as base64, NULL as null, REAL as numbers', async () => {
    const { body } = await sql({ query: "SELECT 9223372036854775807 AS big, 9007199254740991 AS safe, x'DEADBEEF' AS blob, NULL AS empty, 1.5 AS real" });
    assert.deepEqual(body.data, [['9223372036854775807', 9007199254740991, '3q2+7w==', null, 1.5]]);
  });

  it('sends an infinite REAL as the text "Infinity" or "-Infinity" with storage real, where JSON has no number for it', async () => {
    const { body } = await sql({ query: 'SELECT 1e999 AS up, -1e999 AS down, 2.5 AS finite' });
    assert.deepEqual(body.data, [['Infinity', '-Infinity', 2.5]]);
    assert.deepEqual(body.column_types.map((type: { storage: string }) => type.storage), ['real', 'real', 'real']);
  });

  it('selects a named database with context.db, file-backed or in memory', async () => {
    await sql({ query: 'CREATE TABLE d(x); INSERT INTO d VALUES (1)', context: { db: 'disk' } });
    const { body } = await sql({ query: 'SELECT x FROM d', context: { db: 'disk' } });
    assert.deepEqual(body, { type: 'table', column_names: ['x'], column_types: [{ declared: null, storage: 'integer' }], data: [[1]], context: { db: 'disk' } });
    assert.equal((await sql({ query: 'SELECT x FROM d' })).body.error_code, 'no_such_table');
  });

  it('names the failing statement of several in context.statement_index, whether it failed to run or to compile', async () => {
    const failedToRun = await sql({ query: "INSERT INTO t(name) VALUES ('a'); INSERT INTO t(name) VALUES ('a'); SELECT 1" });
    assert.equal(failedToRun.status, 400);
    assert.deepEqual(failedToRun.body.context, { db: 'main', statement_index: 1 });
    const failedToCompile = await sql({ query: 'SELECT 1; SELECT 2; SELEC 3' });
    assert.deepEqual(failedToCompile.body.context, { db: 'main', statement_index: 2 });
    assert.equal((await sql({ query: 'SELEC 1' })).body.context.statement_index, 0);
    assert.equal(await count(), 0);
  });

  describe('bad input answers its documented status and changes nothing', () => {
    const cases: { name: string; send: () => Promise<{ status: number; body: any }>; status: number; check?: (body: any) => void }[] = [
      { name: 'a body that is not JSON', send: () => sql('{"query": '), status: 422, check: (b) => assert.equal(b.detail[0].type, 'json_invalid') },
      { name: 'a missing query', send: () => sql({}), status: 422, check: (b) => assert.deepEqual(b.detail[0].loc, ['body', 'query']) },
      { name: 'a query that is not a string', send: () => sql({ query: 42 }), status: 422, check: (b) => assert.equal(b.detail[0].type, 'string_type') },
      { name: 'an empty query', send: () => sql({ query: '' }), status: 422 },
      { name: 'a body over the statement limit', send: () => sql({ query: `SELECT '${'x'.repeat(80_000)}'` }), status: 413 },
      { name: 'a streamed body over the limit, with no content-length', send: () => chunkedPost(`{"query": "SELECT '${'x'.repeat(80_000)}'"}`), status: 413 },
      { name: 'a syntax error', send: () => sql({ query: "INSERT INTO t(name) VALUES ('z'); SELEC 1" }), status: 400, check: (b) => assert.equal(b.error_code, 'syntax_error') },
      { name: 'a constraint violation', send: () => sql({ query: "INSERT INTO t(name) VALUES ('dup'); INSERT INTO t(name) VALUES ('dup')" }), status: 400, check: (b) => assert.equal(b.error_code, 'constraint_violation') },
      { name: 'a failure in the middle of several statements', send: () => sql({ query: "INSERT INTO t(name) VALUES ('one'); INSERT INTO t(name) VALUES (NULL); INSERT INTO t(name) VALUES ('three')" }), status: 400 },
      { name: 'an unknown context.db', send: () => sql({ query: 'SELECT 1', context: { db: 'elsewhere' } }), status: 400, check: (b) => assert.deepEqual([b.error_code, b.context], ['unknown_database', { db: 'elsewhere' }]) },
      { name: 'too many rows', send: () => sql({ query: "INSERT INTO t(name) VALUES ('r'); WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 60) SELECT x FROM c" }), status: 400, check: (b) => assert.equal(b.error_code, 'too_many_rows') },
      { name: 'a runaway statement', send: () => sql({ query: "INSERT INTO t(name) VALUES ('before'); WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c" }), status: 400, check: (b) => assert.equal(b.error_code, 'statement_timeout') },
      { name: 'a missing key', send: () => sql({ query: "INSERT INTO t(name) VALUES ('k')" }, ''), status: 401, check: (b) => assert.deepEqual(Object.keys(b), ['detail']) },
      { name: 'a key without the sql scope', send: () => sql({ query: "INSERT INTO t(name) VALUES ('k')" }, MODELS_ONLY_KEY), status: 401 },
      { name: 'a param that is not a scalar', send: () => sql({ query: "INSERT INTO t(name) VALUES ('p'); SELECT ?", params: [{ x: 1 }] }), status: 422, check: (b) => assert.deepEqual(b.detail[0].loc.slice(0, 2), ['body', 'params']) },
      { name: 'a nested array of params', send: () => sql({ query: "INSERT INTO t(name) VALUES ('p'); SELECT ?", params: [[1]] }), status: 422, check: (b) => assert.deepEqual(b.detail[0].loc.slice(0, 2), ['body', 'params']) },
      { name: 'mismatched params', send: () => sql({ query: "INSERT INTO t(name) VALUES ('p'); SELECT ?", params: [1, 2] }), status: 400, check: (b) => assert.equal(b.error_code, 'parameter_mismatch') },
      { name: 'a transaction statement', send: () => sql({ query: "BEGIN; INSERT INTO t(name) VALUES ('tx'); COMMIT" }), status: 400, check: (b) => assert.equal(b.error_code, 'transaction_control') },
    ];
    for (const testCase of cases) {
      it(`answers ${testCase.status} for ${testCase.name}`, async () => {
        await sql({ query: "INSERT INTO t(name) VALUES ('existing')" });
        const { status, body } = await testCase.send();
        assert.equal(status, testCase.status, JSON.stringify(body));
        testCase.check?.(body);
        assert.equal(await count(), 1, 'nothing changed');
        if (status === 400) assert.equal(body.type, 'error');
      });
    }
  });

  it('answers another request promptly while a runaway statement runs, and recovers the database after it', async () => {
    await sql({ query: "INSERT INTO t(name) VALUES ('kept')" });
    const runaway = sql({ query: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c' });
    const started = Date.now();
    const other = await sql({ query: 'SELECT 1 AS one', context: { db: 'disk' } });
    const otherMs = Date.now() - started;
    assert.equal(other.status, 200);
    const stopped = await runaway;
    assert.equal(stopped.body.error_code, 'statement_timeout');
    assert.ok(otherMs < RUNAWAY_TIMEOUT_MS, `answered in ${otherMs} ms, before the runaway was stopped`);
    assert.equal(await count(), 1);
  });
});

describe('POST /api/sql/query: a client that goes away', () => {
  let gateway: RunningGateway;

  before(async () => {
    // A timeout far longer than the test may take: only cancellation can free the database in time.
    gateway = await startGateway({ keys: [{ key: TEST_KEY, org: 'acme' }], organizations: { acme: {} }, sql: { timeoutMs: 120_000 } });
  });
  after(() => gateway.close());

  it('stops its running statement at once and leaves the database at its last committed state', async function () {
    this.timeout(10_000);
    const sql = (body: unknown, signal?: AbortSignal) =>
      fetch(`${gateway.url}/api/sql/query`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` }, body: JSON.stringify(body), signal });
    await sql({ query: "CREATE TABLE t(x); INSERT INTO t VALUES ('kept')" });
    const leaving = new AbortController();
    const runaway = sql({ query: "INSERT INTO t VALUES ('dropped'); WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c" }, leaving.signal).catch((error: Error) => error);
    await new Promise((resolve) => setTimeout(resolve, 300));
    leaving.abort();
    assert.equal((await runaway as Error).name, 'AbortError');
    const after = await sql({ query: 'SELECT x FROM t' });
    assert.equal(after.status, 200);
    assert.deepEqual(((await after.json()) as { data: unknown[][] }).data, [['kept']]);
  });
});
