import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { rmSync, statfsSync, writeFileSync } from 'node:fs';
import type { SqlJsStatic } from 'sql.js';
import { parseConfig } from '../../../packages/middleware/src/config/index.js';
import { ServiceError } from '../../../packages/middleware/src/errors/index.js';
import { recoverDatabase, SqlService } from '../../../packages/middleware/src/sql/index.js';
import { SmallTmpfs } from '../../support/small-tmpfs.js';

const loadSqlJs = () => (createRequire(import.meta.url)('sql.js') as () => Promise<SqlJsStatic>)();

/**
 * Issue 16: the journal's write fails for real (a full tmpfs, ENOSPC), not through an injected fs function.
 * The database and its journal live on a 4 MiB tmpfs that a filler file leaves ~300 KiB of.
 */
describe('SQL page journal on a disk that fills up', () => {
  let disk: SmallTmpfs;
  let service: SqlService | undefined;
  let retries: (() => void)[];
  const file = () => join(disk.dir, 'main.sqlite');
  const filler = () => join(disk.dir, 'filler');

  beforeEach(async () => {
    disk = SmallTmpfs.mount(4 * 1_048_576);
    retries = [];
    const { config } = parseConfig({ sql: { databases: { main: { file: 'main.sqlite' } }, journalSegmentBytes: 8 * 1_048_576 } });
    // The boot retry is the test's to fire (no timers to wait for).
    service = await SqlService.open(config.sql, { baseDir: disk.dir, scheduleRetry: (retry) => (retries.push(retry), () => undefined) });
    await service.ready();
    await service.query({ query: 'CREATE TABLE t(id INTEGER PRIMARY KEY, b BLOB)' });
    const { bavail, bsize } = statfsSync(disk.dir);
    writeFileSync(filler(), Buffer.alloc(bavail * bsize - 300 * 1024));
  });
  afterEach(async () => {
    await service?.close().catch(() => undefined);
    disk.unmount();
  });

  it('answers 503 database_unavailable for the write that did not reach the disk, acknowledges nothing it could not save, and serves every acknowledged row once there is room', async () => {
    const acknowledged: number[] = [];
    let refused: ServiceError | undefined;
    for (let id = 1; id <= 40 && !refused; id++) {
      try {
        await service!.query({ query: `INSERT INTO t VALUES (${id}, randomblob(20000))` });
        acknowledged.push(id);
      } catch (error) {
        refused = error as ServiceError;
      }
    }
    assert.ok(refused instanceof ServiceError, 'every insert was acknowledged: the disk never filled');
    assert.deepEqual([refused.status, refused.code], [503, 'database_unavailable']);
    assert.match(refused.message, /could not be saved.*ENOSPC/);
    assert.ok(acknowledged.length > 0);

    // While the disk stays full the database reloads from what is on disk, or says it cannot (503): never a wrong answer.
    const whileFull = await service!.query({ query: 'SELECT id FROM t ORDER BY id' }).then(
      (result) => (result.type === 'table' ? result.data.map((row) => row[0]) : []),
      (error: ServiceError) => error.code,
    );
    assert.ok(whileFull === 'database_unavailable' || JSON.stringify(whileFull) === JSON.stringify(acknowledged), `while full: ${JSON.stringify(whileFull)}`);

    rmSync(filler());
    for (const retry of retries.splice(0)) retry();
    await service!.ready();
    const after = await service!.query({ query: 'SELECT id FROM t ORDER BY id' });
    assert.deepEqual(after.type === 'table' ? after.data.map((row) => row[0]) : [], acknowledged);
    const next = acknowledged.length + 1;
    await service!.query({ query: `INSERT INTO t VALUES (${next}, randomblob(20000))` });

    // What a process started now would find on disk: every acknowledged row and the new one, and a sound file.
    await service!.close();
    service = undefined;
    const SQL = await loadSqlJs();
    const db = new SQL.Database((await recoverDatabase(file())).image);
    try {
      assert.deepEqual(db.exec('SELECT id FROM t ORDER BY id')[0]!.values.flat(), [...acknowledged, next]);
      assert.deepEqual(db.exec('PRAGMA integrity_check')[0]!.values, [['ok']]);
    } finally {
      db.close();
    }
  });
});
