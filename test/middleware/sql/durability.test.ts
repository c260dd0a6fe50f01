import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import type { SqlJsStatic } from 'sql.js';
import { recoverDatabase } from '../../../packages/middleware/src/sql/index.js';

describe('SQL durability', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-durable-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps every acknowledged insert when the process is killed with SIGKILL mid-stream', async () => {
    const child = fork(fileURLToPath(new URL('./durability-child.ts', import.meta.url)), [dir], { execArgv: ['--conditions=tollgate-source', '--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const { url } = await new Promise<{ url: string }>((resolve) => child.once('message', (m) => resolve(m as { url: string })));
    const post = (query: string) => fetch(`${url}/api/sql/query`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer tg-durable-key-001-0123456789abcdef' }, body: JSON.stringify({ query }) });
    assert.equal((await post('CREATE TABLE IF NOT EXISTS log(n INTEGER)')).status, 200);

    const acknowledged: number[] = [];
    let next = 0;
    const writer = async () => {
      while (true) {
        const n = next++;
        try {
          const response = await post(`INSERT INTO log VALUES (${n})`);
          if (response.status === 200) acknowledged.push(n);
        } catch {
          return; // the process is gone: this insert was never acknowledged
        }
      }
    };
    const writers = Array.from({ length: 8 }, writer);
    while (acknowledged.length < 150) await new Promise((resolve) => setTimeout(resolve, 5));
    child.kill('SIGKILL');
    await Promise.all(writers);

    const SQL = (await (createRequire(import.meta.url)('sql.js') as () => Promise<SqlJsStatic>)()) as SqlJsStatic;
    const db = new SQL.Database((await recoverDatabase(join(dir, 'main.sqlite'))).image);
    assert.deepEqual(db.exec('PRAGMA integrity_check')[0]!.values, [['ok']]);
    const stored = new Set(db.exec('SELECT n FROM log')[0]!.values.map(([n]) => n as number));
    const lost = acknowledged.filter((n) => !stored.has(n));
    assert.deepEqual(lost, [], `${lost.length} acknowledged inserts were lost`);
    db.close();
  });
});
