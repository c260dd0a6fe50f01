import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, tollgate, type ConfigInput } from '@tollgate/middleware';
import { postJson, startGateway, TEST_KEY } from '../../support/gateway.js';

/**
 * Two database names on one file: each name gets its own sql.js worker and page journal over the same
 * bytes, so one of them fails to load (503 database_unavailable) and, once it loads, its acknowledged writes
 * are invisible to the other and lost to the next start. A config error naming both, like two keys sharing one key.
 */
describe('two databases configured on one file', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'hunt-shared-file-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const config = (databases: Record<string, { file: string }>): ConfigInput => ({
    keys: [{ key: TEST_KEY, org: 'acme' }],
    organizations: { acme: {} },
    sql: { databases, default: Object.keys(databases)[0] },
  });

  it('is refused at start-up, naming both databases, however the path is spelled', () => {
    assert.throws(
      () => tollgate(config({ reports: { file: 'data/app.sqlite' }, archive: { file: './data/../data/app.sqlite' } }), { baseDir: dir }),
      (error: unknown) => error instanceof ConfigError && /sql\.databases\.archive\.file/.test(error.message) && /reports/.test(error.message),
    );
    assert.throws(() => tollgate(config({ reports: { file: 'app.sqlite' }, archive: { file: join(dir, 'app.sqlite') } }), { baseDir: dir }), ConfigError);
  });

  it('never answers a write ok that the other name and the next start do not see', async () => {
    const both = config({ reports: { file: 'app.sqlite' }, archive: { file: './app.sqlite' } });
    let gateway;
    try {
      gateway = await startGateway(both, { baseDir: dir });
    } catch (error) {
      assert.ok(error instanceof ConfigError, String(error));
      return;
    }
    const sql = (db: string, query: string) => postJson(`${gateway.url}/api/sql/query`, { query, context: { db } }, { authorization: `Bearer ${TEST_KEY}` });
    const acknowledged: string[] = [];
    try {
      for (let attempt = 0; attempt < 30 && acknowledged.length < 2; attempt++) {
        for (const [db, table] of [['reports', 't_reports'], ['archive', 't_archive']] as const) {
          if (acknowledged.includes(table)) continue;
          const answer = await sql(db, `CREATE TABLE ${table}(n)`);
          if (answer.status === 200) acknowledged.push(table);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      await gateway.close();
    }
    const again = await startGateway(both, { baseDir: dir });
    try {
      const read = () => postJson(`${again.url}/api/sql/query`, { query: 'SELECT name FROM sqlite_master ORDER BY name', context: { db: 'reports' } }, { authorization: `Bearer ${TEST_KEY}` });
      let seen = await read();
      // A database that could not load retries by itself every second: give it a few.
      for (let retry = 0; retry < 3 && seen.status === 503; retry++) {
        await new Promise((resolve) => setTimeout(resolve, 1_100));
        seen = await read();
      }
      assert.equal(seen.status, 200, seen.text);
      assert.deepEqual(seen.body.data.flat(), [...acknowledged].sort(), 'every table answered ok is there after a restart');
    } finally {
      await again.close();
    }
  });
});
