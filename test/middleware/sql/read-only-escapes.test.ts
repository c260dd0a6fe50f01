import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postJson, startGateway, type RunningGateway } from '../../support/gateway.js';

const ACME = 'tg-acme-writer-0001-0123456789abcdef';
const ACME_READER = 'tg-acme-sqlread-0001-0123456789abcdef';
const AUDIT = 'tg-audit-granted-read-0001-0123456789abcdef';

/** README "Databases and organizations": a read grant or a sql:read key runs only statements that cannot write. */
describe('read-only keys and SELECTs whose functions write', () => {
  let gateway: RunningGateway;
  let dir: string;
  const sql = (key: string, query: string) => postJson(`${gateway.url}/api/sql/query`, { query }, { authorization: `Bearer ${key}` });
  const schema = async () => (await sql(ACME, 'SELECT name FROM sqlite_master ORDER BY name')).body.data.map((row: string[]) => row[0]);
  const segments = async () => (await sql(ACME, 'SELECT count(*) FROM ft_segdir')).body.data[0][0];

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-hunt-'));
    gateway = await startGateway(
      {
        keys: [
          { key: ACME, org: 'acme' },
          { key: ACME_READER, org: 'acme', scopes: ['sql:read'] },
          { key: AUDIT, org: 'audit' },
        ],
        organizations: { acme: {}, audit: {} },
        sql: { databases: { acme: { file: 'acme.sqlite', access: { acme: 'write', audit: 'read' } } }, default: 'acme' },
      },
      { baseDir: dir },
    );
    const setup = "CREATE TABLE t(a INTEGER); CREATE INDEX ti ON t(a); WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000) INSERT INTO t SELECT x FROM c; CREATE VIRTUAL TABLE ft USING fts4(body)";
    assert.equal((await sql(ACME, setup)).status, 200);
    for (const body of ['a b c', 'd e f', 'g h']) assert.equal((await sql(ACME, `INSERT INTO ft VALUES ('${body}')`)).status, 200);
  });
  afterEach(async () => {
    await gateway.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const key of [ACME_READER, AUDIT]) {
    const who = key === AUDIT ? 'a read grant' : 'a sql:read key';

    it(`refuses the pragma_optimize table-valued function (an ANALYZE) to ${who}, changing nothing`, async () => {
      const before = await schema();
      const { status, body } = await sql(key, 'SELECT * FROM pragma_optimize(0x10002)');
      assert.deepEqual(await schema(), before, 'sqlite_stat1 was created by a read-only request');
      assert.equal(status, 400);
      assert.ok(['read_only', 'pragma_not_allowed'].includes(body.error_code), body.error_code);
    });

    it(`refuses FTS optimize() (it rewrites the index) to ${who}, changing nothing`, async () => {
      assert.equal(await segments(), 3);
      const { status, body } = await sql(key, 'SELECT optimize(ft) FROM ft LIMIT 1');
      assert.equal(await segments(), 3, "the FTS index's segments were merged by a read-only request");
      assert.equal(status, 400);
      assert.equal(body.error_code, 'read_only');
    });
  }
});
