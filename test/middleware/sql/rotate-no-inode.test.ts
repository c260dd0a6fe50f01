import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import { recoverDatabase } from '../../../packages/middleware/src/sql/index.js';
import { postJson, startGateway, type RunningGateway } from '../../support/gateway.js';

const loadSqlJs = () => (createRequire(import.meta.url)('sql.js') as () => Promise<SqlJsStatic>)();

/**
 * A disk that runs out of inodes (a full ext4 directory block, a tmpfs's nr_inodes) while it still has room
 * for bytes: the journal's segment keeps growing, but the next segment cannot be created when the full one
 * rotates. The rotation runs after the group's answers, outside the journal's error handling.
 */
describe('SQL page journal when the next segment cannot be created (no free inode)', () => {
  let dir: string;
  let gateway: RunningGateway | undefined;
  let unhandled: unknown[];
  let savedListeners: NodeJS.UnhandledRejectionListener[];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);

  beforeEach(() => {
    if (process.getuid?.() !== 0) throw new Error('needs root to mount a tmpfs');
    dir = mkdtempSync(join(tmpdir(), 'tollgate-inodes-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m,nr_inodes=64,mode=0777', 'tmpfs', dir]);
    unhandled = [];
    // Recorded here rather than by mocha's own handler, so the assertion below says what happened.
    savedListeners = process.listeners('unhandledRejection');
    process.removeAllListeners('unhandledRejection');
    process.on('unhandledRejection', onUnhandled);
  });
  afterEach(async () => {
    await gateway?.close().catch(() => undefined);
    gateway = undefined;
    process.off('unhandledRejection', onUnhandled);
    for (const listener of savedListeners) process.on('unhandledRejection', listener);
    execFileSync('umount', [dir]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers every write (200, or 503 database_unavailable) without an unhandled rejection, and keeps exactly the acknowledged rows', async () => {
    gateway = await startGateway({ sql: { auth: false, databases: { main: { file: 'main.sqlite' } }, journalSegmentBytes: 65_536 } }, { baseDir: dir });
    const sql = (query: string) => postJson(`${gateway!.url}/api/sql/query`, { query });
    assert.equal((await sql('CREATE TABLE t(id INTEGER PRIMARY KEY, b BLOB)')).status, 200);

    // Every free inode taken; bytes are still plentiful.
    const fillers: string[] = [];
    for (let i = 0; ; i++) {
      const filler = join(dir, `filler-${i}`);
      try {
        writeFileSync(filler, '');
      } catch (error) {
        assert.equal((error as NodeJS.ErrnoException).code, 'ENOSPC');
        break;
      }
      fillers.push(filler);
    }

    const acknowledged: number[] = [];
    const answers: string[] = [];
    for (let id = 1; id <= 40; id++) {
      const { status, body } = await sql(`INSERT INTO t VALUES (${id}, randomblob(4000))`);
      answers.push(`${status} ${body.error_code ?? ''}`.trim());
      if (status === 200) acknowledged.push(id);
      else assert.deepEqual([status, body.error_code], [503, 'database_unavailable'], `insert ${id}: ${JSON.stringify(body)}`);
      // Give a rotation that failed in the background its turn to surface.
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.equal(unhandled.length, 0, `${unhandled.length} unhandled rejections (first: ${String(unhandled[0])}): the journal's rotation failed outside any request, which kills a host without an unhandledRejection handler (answers: ${answers.join(', ')})`);
    assert.ok(acknowledged.length > 0);

    // The operator frees inodes: the database serves every acknowledged row and takes writes again.
    for (const filler of fillers) rmSync(filler);
    let after: Awaited<ReturnType<typeof sql>> | undefined;
    for (let attempt = 0; attempt < 30; attempt++) {
      after = await sql('SELECT id FROM t ORDER BY id');
      if (after.status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.equal(after!.status, 200, `${JSON.stringify(after!.body)} answers: ${answers.join(", ")}`);
    assert.deepEqual(after!.body.data.flat(), acknowledged);
    assert.equal((await sql('INSERT INTO t VALUES (1000, randomblob(10))')).status, 200);

    await gateway.close();
    gateway = undefined;
    const SQL = await loadSqlJs();
    const db = new SQL.Database((await recoverDatabase(join(dir, 'main.sqlite'))).image);
    try {
      assert.deepEqual(db.exec('SELECT id FROM t ORDER BY id')[0]!.values.flat(), [...acknowledged, 1000]);
      assert.deepEqual(db.exec('PRAGMA integrity_check')[0]!.values, [['ok']]);
    } finally {
      db.close();
    }
    assert.deepEqual(readdirSync(dir).filter((name) => name.includes('-tgj.')), []);
  });
});
