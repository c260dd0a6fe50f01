import assert from 'node:assert/strict';
import type { ConfigInput } from '@tollgate/middleware';
import pg from 'pg';
import { postJson, startGateway, type RunningGateway } from '../../support/gateway.js';
import { PostgresServer } from '../../support/postgres-server.js';

const WRITER = 'tg-pg-writer-0002-0123456789abcdef';
const READER = 'tg-pg-sqlread-0002-0123456789abcdef';

/**
 * A sql:read key against the postgres kind, on one connection (pool max 1): the read-only opening rides with the
 * first statement and the statement plans are kept per text, so every way out of READ ONLY is tried there.
 */
describe('a sql:read key on the postgres kind cannot write through the read-only opening or a kept plan', () => {
  let server: PostgresServer;
  let gateway: RunningGateway;
  const sql = (body: unknown, key = READER) => postJson(`${gateway.url}/api/sql/query`, body, { authorization: `Bearer ${key}` });
  const rows = async () => (await sql({ query: 'SELECT count(*)::int FROM guarded' }, WRITER)).body.data;

  before(async function () {
    this.timeout(60_000);
    server = await PostgresServer.start();
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    await client.query('CREATE TABLE guarded(n int)');
    await client.end();
    const config = {
      keys: [
        { key: WRITER, org: 'acme' },
        { key: READER, org: 'acme', scopes: ['sql:read' as const] },
      ],
      organizations: { acme: {} },
      sql: { databases: { main: { kind: 'postgres', url: server.url, pool: { max: 1 } } }, default: 'main', maxRows: 50, timeoutMs: 2_000, maxStatementBytes: 4096 },
    } as ConfigInput;
    gateway = await startGateway(config);
  });
  after(async () => {
    await gateway?.close();
    await server?.close();
  });

  const escapes: [what: string, query: string][] = [
    ['COMMIT ahead of the write', 'COMMIT; INSERT INTO guarded VALUES (1)'],
    ['END ahead of the write', 'END; INSERT INTO guarded VALUES (1)'],
    ['ROLLBACK ahead of the write', 'ROLLBACK; INSERT INTO guarded VALUES (1)'],
    ['ABORT ahead of the write', 'ABORT; INSERT INTO guarded VALUES (1)'],
    ['COMMIT AND CHAIN ahead of the write', 'COMMIT AND CHAIN; INSERT INTO guarded VALUES (1)'],
    ['a new BEGIN READ WRITE', 'BEGIN READ WRITE; INSERT INTO guarded VALUES (1)'],
    ['START TRANSACTION READ WRITE', 'START TRANSACTION READ WRITE; INSERT INTO guarded VALUES (1)'],
    ['SET SESSION CHARACTERISTICS', 'SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE; INSERT INTO guarded VALUES (1)'],
    ["set_config('transaction_read_only')", "SELECT set_config('transaction_read_only', 'off', true); INSERT INTO guarded VALUES (1)"],
    ['a DO block', 'DO $$BEGIN INSERT INTO guarded VALUES (1); END$$'],
    ['a lone write (simple Query)', 'INSERT INTO guarded VALUES (1)'],
    ['a write with a ";" in a string', "INSERT INTO guarded SELECT 1 WHERE ';' = ';'"],
    ['a failing first statement, then the write', 'SELECT 1/0; INSERT INTO guarded VALUES (1)'],
    ['a write in a CTE', 'WITH w AS (INSERT INTO guarded VALUES (1) RETURNING n) SELECT n FROM w'],
  ];
  for (const [what, query] of escapes) {
    it(`answers 400 to ${what} and writes nothing; the connection then serves a read and a write as before`, async () => {
      const refused = await sql({ query });
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.deepEqual(await rows(), [[0]]);
      assert.deepEqual((await sql({ query: 'SELECT 1 AS one' })).body.data, [[1]]);
      const written = await sql({ query: 'INSERT INTO guarded VALUES (2); DELETE FROM guarded' }, WRITER);
      assert.equal(written.status, 200, JSON.stringify(written.body));
    });
  }

  it('refuses a write whose text a writer ran before (its plan kept) and answers the writer again', async () => {
    for (const params of [undefined, [3], { n: 3 }] as const) {
      const query = params === undefined ? 'INSERT INTO guarded VALUES (3)' : Array.isArray(params) ? 'INSERT INTO guarded VALUES (?)' : 'INSERT INTO guarded VALUES (:n)';
      const body = params === undefined ? { query } : { query, params };
      assert.equal((await sql(body, WRITER)).status, 200);
      const refused = await sql(body);
      assert.deepEqual([refused.status, refused.body.error_code], [400, 'read_only'], query);
      assert.equal((await sql(body, WRITER)).status, 200);
    }
    assert.deepEqual(await rows(), [[6]]);
    await sql({ query: 'DELETE FROM guarded' }, WRITER);
  });
});
