import assert from 'node:assert/strict';
import { request } from 'node:http';
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

  it('answers 400 syntax_error to SQL text holding a NUL, reader or writer, writes nothing and keeps its one connection (PostgreSQL would close it: a 503)', async () => {
    const backend = async () => (await sql({ query: 'SELECT pg_backend_pid()' }, WRITER)).body.data;
    const before = await backend();
    for (const query of ['SELECT 1\u0000; INSERT INTO guarded VALUES (1)', 'INSERT INTO guarded VALUES (1)\u0000', "SELECT '\u0000'", 'SELECT ?\u0000']) {
      for (const key of [READER, WRITER]) {
        const refused = await sql(query.includes('?') ? { query, params: [1] } : { query }, key);
        assert.deepEqual([refused.status, refused.body.error_code], [400, 'syntax_error'], JSON.stringify(query));
        assert.match(refused.body.error_message, /NUL character/);
      }
    }
    assert.deepEqual(await backend(), before, 'the same connection serves on');
    assert.deepEqual(await rows(), [[0]]);
    const valued = await sql({ query: 'SELECT ?::text AS v', params: ['a\u0000b'] });
    assert.equal(valued.status, 400, JSON.stringify(valued.body));
  });

  it('answers texts that differ only in whitespace, comments, a ";" in a string or trailing ";" each as written (a plan per text)', async () => {
    const variants: [query: string, data: unknown][] = [
      ['SELECT 1 AS one', [[1]]],
      ['SELECT 1 AS one ', [[1]]],
      ['SELECT 1 AS one;', [[1]]],
      ['SELECT 1 AS one;;', [[1]]],
      ['SELECT 1 AS one -- ; INSERT INTO guarded VALUES (1)', [[1]]],
      ['/* ; */ SELECT 1 AS one', [[1]]],
      ["SELECT ';' AS one", [[';']]],
      ["SELECT $$;$$ AS one", [[';']]],
    ];
    for (let round = 0; round < 2; round++) {
      for (const [query, data] of variants) {
        for (const key of [READER, WRITER]) assert.deepEqual((await sql({ query }, key)).body.data, data, query);
      }
    }
    assert.deepEqual(await rows(), [[0]]);
  });

  it('leaves its connection clean when a reader leaves at any point of its request: the next write and read are answered', async () => {
    const url = new URL(`${gateway.url}/api/sql/query`);
    for (let round = 0; round < 16; round++) {
      const body = JSON.stringify({ query: round % 2 ? 'SELECT pg_sleep(0.05)' : 'SELECT count(*) FROM generate_series(1, 3000000)' });
      const req = request(url, { method: 'POST', headers: { authorization: `Bearer ${READER}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } });
      req.on('error', () => undefined);
      req.end(body);
      // Leaves a little later each round: before its opening, on it, or while its statement runs.
      for (let turn = 0; turn < round * 4; turn++) await new Promise((resolve) => setImmediate(resolve));
      req.destroy();
      const written = await sql({ query: 'INSERT INTO guarded VALUES (9)' }, WRITER);
      assert.equal(written.status, 200, JSON.stringify(written.body));
      assert.equal((await sql({ query: 'SELECT count(*)::int FROM guarded' })).status, 200);
    }
    assert.deepEqual(await rows(), [[16]]);
    await sql({ query: 'DELETE FROM guarded' }, WRITER);
  });
});
