import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import { parseConfig } from '../../../packages/middleware/src/config/index.js';
import { ServiceError } from '../../../packages/middleware/src/errors/index.js';
import { recoverDatabase, SqlService } from '../../../packages/middleware/src/sql/index.js';

const RUNAWAY = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c';

describe('SqlService', () => {
  let dir: string;
  let service: SqlService | undefined;
  const open = async (sql: Record<string, unknown> = {}) => {
    const { config } = parseConfig({ sql: { databases: { main: { file: 'main.sqlite' } }, timeoutMs: 1_000, ...sql } });
    const opened = await SqlService.open(config.sql, { baseDir: dir });
    service = opened;
    return opened;
  };
  const codeOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 'ok',
      (error: unknown) => (error instanceof ServiceError ? `${error.status} ${error.code}` : String(error)),
    );
  /** What is on disk now: the database file plus its page journal, as a restart would recover it. */
  const readFile = async () => {
    const SQL = await (createRequire(import.meta.url)('sql.js') as () => Promise<SqlJsStatic>)();
    const db = new SQL.Database((await recoverDatabase(join(dir, 'main.sqlite'))).image);
    const rows = db.exec('SELECT n FROM log ORDER BY n')[0]?.values.map(([n]) => n) ?? [];
    db.close();
    return rows;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-sql-service-'));
  });
  afterEach(async () => {
    await service?.close();
    service = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs a request queued behind a runaway exactly once, on the restarted worker', async () => {
    const service = await open();
    await service.query({ query: 'CREATE TABLE log(n INTEGER)' });
    const runaway = codeOf(service.query({ query: RUNAWAY }));
    const behind = service.query({ query: 'INSERT INTO log VALUES (1)' });
    assert.equal(await runaway, '400 statement_timeout');
    assert.deepEqual(await behind, { type: 'ok', affected_rows: 1, context: { db: 'main' } });
    assert.deepEqual(await service.query({ query: 'SELECT n FROM log' }), { type: 'table', column_names: ['n'], column_types: [{ declared: 'INTEGER', storage: 'integer' }], data: [[1]], context: { db: 'main' } });
  });

  it('keeps a write that ran just before a runaway: the restarted worker recovers it from the journal', async () => {
    const service = await open();
    await service.query({ query: 'CREATE TABLE log(n INTEGER)' });
    // Posted together: the insert runs, then the runaway starts before the insert's pages are durable.
    const insert = codeOf(service.query({ query: 'INSERT INTO log VALUES (7)' }));
    const runaway = codeOf(service.query({ query: RUNAWAY }));
    const [insertOutcome, runawayOutcome] = await Promise.all([insert, runaway]);
    assert.equal(runawayOutcome, '400 statement_timeout');
    assert.equal(insertOutcome, 'ok');
    assert.deepEqual(await service.query({ query: 'SELECT n FROM log' }), { type: 'table', column_names: ['n'], column_types: [{ declared: 'INTEGER', storage: 'integer' }], data: [[7]], context: { db: 'main' } });
    await service.close();
    assert.deepEqual(await readFile(), [7]);
  });

  it('stops a kept quick read that turned into a runaway, not the write before it whose answer waited in the worker', async () => {
    const service = await open();
    await service.query({ query: 'CREATE TABLE log(n INTEGER)' });
    const countTo = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?) SELECT count(*) AS n FROM c';
    // Twice: kept, read-only and quick on its last run, so the worker holds the answers before it while it runs.
    await service.query({ query: countTo, params: [1] });
    await service.query({ query: countTo, params: [1] });
    const insert = codeOf(service.query({ query: 'INSERT INTO log VALUES (5)' }));
    const runaway = codeOf(service.query({ query: countTo, params: [1e12] }));
    assert.deepEqual(await Promise.all([insert, runaway]), ['ok', '400 statement_timeout']);
    assert.deepEqual(await service.query({ query: 'SELECT n FROM log' }), { type: 'table', column_names: ['n'], column_types: [{ declared: 'INTEGER', storage: 'integer' }], data: [[5]], context: { db: 'main' } });
    await service.close();
    assert.deepEqual(await readFile(), [5]);
  });

  it("gives back the memory of a request that grew its worker's heap (a 400 MB randomblob): the process's RSS falls back, and every write and the requests sent with it are answered once", async function () {
    this.timeout(30_000);
    const service = await open({ timeoutMs: 15_000 }); // a loaded machine takes its time over 400 MB
    await service.query({ query: 'CREATE TABLE log(n INTEGER)' });
    const rssBefore = process.memoryUsage().rss;
    const [big, insert, read] = await Promise.all([
      service.query({ query: 'INSERT INTO log VALUES (1); SELECT length(randomblob(400000000)) AS n' }),
      service.query({ query: 'INSERT INTO log VALUES (2)' }),
      service.query({ query: 'SELECT count(*) AS n FROM log' }),
    ]);
    assert.deepEqual([big.type === 'table' && big.data, insert.type, read.type === 'table' && read.data], [[[400_000_000]], 'ok', [[2]]]);
    // WebAssembly memory never shrinks: only a new worker gives it back.
    let grown = process.memoryUsage().rss - rssBefore;
    for (const started = Date.now(); grown > 150_000_000 && Date.now() - started < 10_000; grown = process.memoryUsage().rss - rssBefore) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.ok(grown < 150_000_000, `RSS still ${Math.round(grown / 1e6)} MB above what it was before the request`);
    assert.deepEqual(await service.query({ query: 'SELECT n FROM log ORDER BY n' }), {
      type: 'table',
      column_names: ['n'],
      column_types: [{ declared: 'INTEGER', storage: 'integer' }],
      data: [[1], [2]],
      context: { db: 'main' },
    });
    assert.deepEqual(await readFile(), [1, 2]);
  });

  it('closes while the worker restarts after a runaway: the write queued behind it is answered and saved, and close() resolves', async () => {
    const sql = await open();
    await sql.query({ query: 'CREATE TABLE log(n INTEGER)' });
    const runaway = codeOf(sql.query({ query: RUNAWAY }));
    const behind = codeOf(sql.query({ query: 'INSERT INTO log VALUES (1)' }));
    assert.equal(await runaway, '400 statement_timeout');
    // The new worker is loading now: close() must let it answer what waits for it (it hung, with the insert unanswered).
    await sql.close();
    service = undefined;
    assert.equal(await behind, 'ok');
    assert.deepEqual(await readFile(), [1]);
  });

  it('keeps the in-memory database across a runaway restart too', async () => {
    const { config } = parseConfig({ sql: { databases: { main: {} }, timeoutMs: 1_000 } });
    const opened = await SqlService.open(config.sql, { baseDir: dir });
    service = opened;
    await opened.query({ query: 'CREATE TABLE log(n INTEGER); INSERT INTO log VALUES (1)' });
    assert.equal(await codeOf(opened.query({ query: RUNAWAY })), '400 statement_timeout');
    assert.deepEqual(await opened.query({ query: 'SELECT n FROM log' }), { type: 'table', column_names: ['n'], column_types: [{ declared: 'INTEGER', storage: 'integer' }], data: [[1]], context: { db: 'main' } });
  });

  it('acknowledges every write of a concurrent burst only once it is on disk, sharing fdatasyncs (group commit)', async () => {
    const service = await open();
    await service.query({ query: 'CREATE TABLE log(n INTEGER)' });
    await Promise.all(Array.from({ length: 200 }, (_, n) => service.query({ query: 'INSERT INTO log VALUES (?)', params: [n] })));
    assert.equal((await readFile()).length, 200);
  });

  it('answers a repeated query with its own params each time, also after a write and after the table changed shape', async () => {
    const service = await open();
    await service.query({ query: "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO t VALUES (1, 'a'), (2, 'b')" });
    const byId = (id: number) => service.query({ query: 'SELECT * FROM t WHERE id = ?', params: [id] });
    assert.deepEqual((await byId(1)).type === 'table' && (await byId(1)), { type: 'table', column_names: ['id', 'name'], column_types: [{ declared: 'INTEGER', storage: 'integer' }, { declared: 'TEXT', storage: 'text' }], data: [[1, 'a']], context: { db: 'main' } });
    assert.deepEqual(await byId(2), { type: 'table', column_names: ['id', 'name'], column_types: [{ declared: 'INTEGER', storage: 'integer' }, { declared: 'TEXT', storage: 'text' }], data: [[2, 'b']], context: { db: 'main' } });
    await service.query({ query: "ALTER TABLE t ADD COLUMN note TEXT DEFAULT 'n'; UPDATE t SET name = 'z' WHERE id = 2" });
    assert.deepEqual(await byId(2), { type: 'table', column_names: ['id', 'name', 'note'], column_types: [{ declared: 'INTEGER', storage: 'integer' }, { declared: 'TEXT', storage: 'text' }, { declared: 'TEXT', storage: 'text' }], data: [[2, 'z', 'n']], context: { db: 'main' } });
    assert.deepEqual(await byId(3), { type: 'table', column_names: ['id', 'name', 'note'], column_types: [{ declared: 'INTEGER', storage: null }, { declared: 'TEXT', storage: null }, { declared: 'TEXT', storage: null }], data: [], context: { db: 'main' } });
  });

  // Sent together, the second run of a statement finds it prepared and kept from the first: these check
  // that a kept statement which writes is still saved before it is acknowledged, and still rolled back whole.
  it('acknowledges a repeated write only once it is on disk, even when it runs before the first run was saved', async () => {
    const service = await open();
    await service.query({ query: 'CREATE TABLE log(n INTEGER UNIQUE)' });
    const insertTwo = (a: number, b: number) => codeOf(service.query({ query: 'INSERT INTO log VALUES (?), (?)', params: [a, b] }));
    const first = insertTwo(1, 2);
    assert.equal(await insertTwo(3, 4), 'ok');
    assert.deepEqual(await readFile(), [1, 2, 3, 4]);
    assert.equal(await first, 'ok');
    const failing = insertTwo(5, 1);
    assert.equal(await insertTwo(6, 2), '400 constraint_violation');
    assert.equal(await failing, '400 constraint_violation');
    assert.deepEqual(await service.query({ query: 'SELECT n FROM log ORDER BY n' }), { type: 'table', column_names: ['n'], column_types: [{ declared: 'INTEGER', storage: 'integer' }], data: [[1], [2], [3], [4]], context: { db: 'main' } });
  });

  it('treats a repeated UPDATE … RETURNING as the write it is: its rows answer and it is on disk when acknowledged', async () => {
    const service = await open();
    await service.query({ query: 'CREATE TABLE log(n INTEGER); INSERT INTO log VALUES (1), (2)' });
    const bump = (n: number) => service.query({ query: 'UPDATE log SET n = n + 10 WHERE n = ? RETURNING n', params: [n] });
    const first = bump(1);
    assert.deepEqual(await bump(2), { type: 'table', column_names: ['n'], column_types: [{ declared: null, storage: 'integer' }], data: [[12]], context: { db: 'main' } });
    assert.deepEqual(await readFile(), [11, 12]);
    assert.deepEqual(await first, { type: 'table', column_names: ['n'], column_types: [{ declared: null, storage: 'integer' }], data: [[11]], context: { db: 'main' } });
  });

  it('answers 413 for a statement over maxStatementBytes and runs nothing', async () => {
    const service = await open({ maxStatementBytes: 100 });
    await service.query({ query: 'CREATE TABLE log(n INTEGER)' });
    assert.equal(await codeOf(service.query({ query: `INSERT INTO log VALUES (1); -- ${'x'.repeat(100)}` })), '413 request_too_large');
    assert.deepEqual(await readFile(), []);
  });

  it('reports a file that is not a database at ready() and on every request with 503 database_unavailable, then recovers by itself once the file is fixed', async () => {
    writeFileSync(join(dir, 'main.sqlite'), 'this is not a database, just a text file that is long enough to have a header');
    const retries: { retry: () => void; delayMs: number }[] = [];
    const { config } = parseConfig({ sql: { databases: { main: { file: 'main.sqlite' } } } });
    const opened = await SqlService.open(config.sql, { baseDir: dir, scheduleRetry: (retry, delayMs) => (retries.push({ retry, delayMs }), () => undefined) });
    service = opened;
    await assert.rejects(opened.ready(), (error: ServiceError) => error.status === 503 && error.code === 'database_unavailable' && /not a database/.test(error.message));
    assert.equal(await codeOf(opened.query({ query: 'SELECT 1' })), '503 database_unavailable');
    // Still broken at the first retry: the next one waits twice as long.
    retries.shift()!.retry();
    await assert.rejects(opened.ready(), /not a database/);
    assert.deepEqual(retries.map((r) => r.delayMs), [2000]);
    rmSync(join(dir, 'main.sqlite'));
    retries.shift()!.retry();
    await opened.ready();
    assert.deepEqual(await opened.query({ query: 'SELECT 1 AS one' }), { type: 'table', column_names: ['one'], column_types: [{ declared: null, storage: 'integer' }], data: [[1]], context: { db: 'main' } });
  });
});
