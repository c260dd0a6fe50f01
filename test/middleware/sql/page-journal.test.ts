import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { open as openFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import { parseConfig } from '../../../packages/middleware/src/config/index.js';
import { ServiceError } from '../../../packages/middleware/src/errors/index.js';
import { recoverDatabase, SqlService } from '../../../packages/middleware/src/sql/index.js';

const loadSqlJs = () => (createRequire(import.meta.url)('sql.js') as () => Promise<SqlJsStatic>)();

describe('SQL page journal', () => {
  let dir: string;
  let service: SqlService | undefined;
  const file = () => join(dir, 'main.sqlite');
  const open = async (sql: Record<string, unknown> = {}, database: Record<string, unknown> = {}) => {
    const { config } = parseConfig({ sql: { databases: { main: { file: 'main.sqlite', ...database } }, ...sql } });
    service = await SqlService.open(config.sql, { baseDir: dir });
    await service.ready();
    return service;
  };
  const value = async (query: string) => {
    const result = await service!.query({ query });
    assert.equal(result.type, 'table');
    return result.type === 'table' ? result.data[0]![0] : undefined;
  };
  /** A query against what is on disk right now (base + journal), as a process started now would see it. */
  const onDisk = async (query: string) => {
    const SQL = await loadSqlJs();
    const db = new SQL.Database((await recoverDatabase(file())).image);
    try {
      return db.exec(query)[0]?.values ?? [];
    } finally {
      db.close();
    }
  };
  const codeOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 'ok',
      (error: unknown) => (error instanceof ServiceError ? `${error.status} ${error.code}` : String(error)),
    );

  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'tollgate-journal-'))));
  afterEach(async () => {
    await service?.close();
    service = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('leaves out of the database a write answered 503 because its fdatasync failed (EIO) after its bytes were written: a retry writes it once', async () => {
    const service = await open();
    await service.query({ query: 'CREATE TABLE log(n INTEGER); INSERT INTO log VALUES (1)' });
    // No disk of the test fails fdatasync for real (a tmpfs never does): the real call is made, then answered EIO once.
    const probe = await openFile(join(dir, 'probe'), 'w');
    const prototype = Object.getPrototypeOf(probe) as FileHandle;
    await probe.close();
    const datasync = prototype.datasync;
    let failNext = true;
    prototype.datasync = async function (this: FileHandle) {
      await datasync.call(this);
      if (!failNext) return;
      failNext = false;
      throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
    };
    try {
      assert.equal(await codeOf(service.query({ query: 'INSERT INTO log VALUES (2)' })), '503 database_unavailable');
    } finally {
      prototype.datasync = datasync;
    }
    assert.deepEqual(await service.query({ query: 'SELECT n FROM log ORDER BY n' }).then((result) => result.type === 'table' && result.data), [[1]]);
    await service.query({ query: 'INSERT INTO log VALUES (2)' }); // the client's retry
    assert.deepEqual(await onDisk('SELECT n FROM log ORDER BY n'), [[1], [2]]);
  });

  it('saves PRAGMA user_version and application_id, which move no change counter, before acknowledging them', async () => {
    await open();
    await service!.query({ query: 'CREATE TABLE t(x)' });
    await service!.query({ query: 'PRAGMA user_version = 7' });
    await service!.query({ query: 'PRAGMA application_id = 1234' });
    assert.deepEqual(await onDisk('PRAGMA user_version'), [[7]]);
    assert.deepEqual(await onDisk('PRAGMA application_id'), [[1234]]);
  });

  it('saves a repeated ANALYZE', async () => {
    await open();
    await service!.query({ query: 'CREATE TABLE t(x); CREATE INDEX tx ON t(x); INSERT INTO t VALUES (1), (2), (2)' });
    await service!.query({ query: 'ANALYZE' });
    await service!.query({ query: 'INSERT INTO t SELECT x + 2 FROM t' });
    await service!.query({ query: 'ANALYZE' });
    assert.deepEqual(await onDisk("SELECT stat FROM sqlite_stat1 WHERE idx = 'tx'"), [['6 2']]);
  });

  it('answers SELECT changes() with the rows the previous one-statement write changed, also when the write is repeated', async () => {
    await open();
    await service!.query({ query: 'CREATE TABLE t(x)' });
    for (const n of [3, 2]) {
      await service!.query({ query: 'WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < ?) INSERT INTO t SELECT n FROM c', params: [n] });
      assert.equal(await value('SELECT changes()'), n);
    }
  });

  it('opens a database file written before the journal as it is, and leaves one plain file after a clean close', async () => {
    const SQL = await loadSqlJs();
    const legacy = new SQL.Database();
    legacy.exec("CREATE TABLE t(x); INSERT INTO t VALUES ('before')");
    writeFileSync(file(), legacy.export());
    legacy.close();
    await open();
    assert.equal(await value('SELECT x FROM t'), 'before');
    await service!.query({ query: "INSERT INTO t VALUES ('after')" });
    await service!.close();
    service = undefined;
    assert.deepEqual(readdirSync(dir), ['main.sqlite']);
    const reopened = new SQL.Database(readFileSync(file()));
    assert.deepEqual(reopened.exec('SELECT x FROM t ORDER BY rowid')[0]!.values, [['before'], ['after']]);
    reopened.close();
  });

  it('checkpoints full segments into the database file while commits go on, and recovers the same rows', async () => {
    await open({ journalSegmentBytes: 65_536 });
    await service!.query({ query: 'CREATE TABLE t(id INTEGER PRIMARY KEY, b BLOB)' });
    for (let i = 0; i < 60; i++) await service!.query({ query: 'INSERT INTO t(b) VALUES (randomblob(3000))' });
    assert.deepEqual(await onDisk('SELECT count(*) FROM t'), [[60]]);
    assert.ok(statSync(file()).size > 100_000, 'the base file holds the checkpointed pages');
    assert.ok(readdirSync(dir).filter((name) => name.includes('-tgj.')).length <= 2);
  });

  it('keeps saving writes after requests that try to move the journal mode, whatever those were answered', async () => {
    await open();
    await service!.query({ query: 'CREATE TABLE t(x)' });
    // Twice each, so a kept statement gets its second run. A WAL's commits would go to a -wal file the capture
    // does not journal (SQLite refuses WAL inside the request's savepoint; the worker also restores its mode).
    // The statement policy refuses them (400 pragma_not_allowed); durability must hold either way.
    for (const mode of ['WAL', 'WAL', 'DELETE', 'DELETE']) assert.equal(await codeOf(service!.query({ query: `PRAGMA journal_mode = ${mode}` })), '400 pragma_not_allowed');
    await service!.query({ query: 'INSERT INTO t VALUES (42)' });
    assert.deepEqual(await onDisk('SELECT x FROM t'), [[42]]);
    assert.deepEqual(await onDisk('PRAGMA integrity_check'), [['ok']]);
  });

  it('refuses to guess when a journal segment is missing: ready() and every request answer 503 database_unavailable', async () => {
    writeFileSync(join(dir, 'main.sqlite-tgj.0000000000000001'), Buffer.alloc(0));
    writeFileSync(join(dir, 'main.sqlite-tgj.0000000000000005'), Buffer.alloc(0));
    const { config } = parseConfig({ sql: { databases: { main: { file: 'main.sqlite' } } } });
    service = await SqlService.open(config.sql, { baseDir: dir, scheduleRetry: () => () => undefined });
    await assert.rejects(service.ready(), /segment is missing/);
    assert.equal(await codeOf(service.query({ query: 'SELECT 1' })), '503 database_unavailable');
  });

  describe('maxDatabaseBytes', () => {
    it('answers 400 database_full for a write that would grow the file past the quota, and changes nothing', async () => {
      await open({}, { maxDatabaseBytes: 64 * 1024 });
      await service!.query({ query: 'CREATE TABLE t(id INTEGER PRIMARY KEY, b BLOB); INSERT INTO t(b) VALUES (randomblob(1000))' });
      const before = await onDisk('SELECT count(*), sum(length(b)) FROM t');
      assert.equal(await codeOf(service!.query({ query: 'INSERT INTO t(b) VALUES (randomblob(10)); INSERT INTO t(b) VALUES (randomblob(200000))' })), '400 database_full');
      assert.deepEqual(await onDisk('SELECT count(*), sum(length(b)) FROM t'), before);
      assert.equal(await value('SELECT count(*) FROM t'), 1);
      assert.equal(await codeOf(service!.query({ query: 'INSERT INTO t(b) VALUES (randomblob(1000))' })), 'ok');
    });

    // The statement policy refuses setting max_page_count before anything runs; the worker's pre-RELEASE size
    // check stays behind it as a second line of defence should the PRAGMA table ever let it through.
    it('refuses a request that raises max_page_count itself (400 pragma_not_allowed) and changes nothing', async () => {
      await open({}, { maxDatabaseBytes: 64 * 1024 });
      await service!.query({ query: 'CREATE TABLE t(b BLOB)' });
      assert.equal(await codeOf(service!.query({ query: 'PRAGMA max_page_count = 1000000; INSERT INTO t VALUES (randomblob(200000))' })), '400 pragma_not_allowed');
      assert.deepEqual(await onDisk('SELECT count(*) FROM t'), [[0]]);
    });
  });
});
