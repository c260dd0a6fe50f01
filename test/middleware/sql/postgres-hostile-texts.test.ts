import assert from 'node:assert/strict';
import type { ConfigInput } from '@tollgate/middleware';
import pg from 'pg';
import { postJson, startGateway, type RunningGateway } from '../../support/gateway.js';
import { PostgresServer } from '../../support/postgres-server.js';

const WRITER = 'tg-pg-writer-0042-0123456789abcdef';
const READER = 'tg-pg-sqlread-0042-0123456789abcdef';

/**
 * Texts PostgreSQL reads differently from a naive scanner, and requests that change what bounds them, on the postgres
 * kind: one connection (pool max 1), maxRows 5, timeoutMs 1 s.
 */
describe('the postgres kind against texts and settings meant to get round it', () => {
  let server: PostgresServer;
  let gateway: RunningGateway;
  const sql = (body: unknown, key = READER) => postJson(`${gateway.url}/api/sql/query`, body, { authorization: `Bearer ${key}` });
  const admin = async (text: string): Promise<unknown[][]> => {
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      return (await client.query({ text, rowMode: 'array' })).rows;
    } finally {
      await client.end();
    }
  };
  const rows = async () => (await admin('SELECT count(*)::int FROM guarded'))[0]![0];

  before(async function () {
    this.timeout(60_000);
    server = await PostgresServer.start();
    await admin('CREATE TABLE guarded(n int)');
    await admin('CREATE FUNCTION bump() RETURNS int LANGUAGE sql AS $$ INSERT INTO guarded VALUES (1) RETURNING 1 $$');
    const config = {
      keys: [
        { key: WRITER, org: 'acme' },
        { key: READER, org: 'acme', scopes: ['sql:read' as const] },
      ],
      organizations: { acme: {} },
      sql: { databases: { main: { kind: 'postgres', url: server.url, pool: { max: 1 } } }, default: 'main', maxRows: 5, timeoutMs: 1_000, maxStatementBytes: 4096 },
    } as ConfigInput;
    gateway = await startGateway(config);
  });
  beforeEach(async () => {
    await admin('DELETE FROM guarded');
  });
  after(async () => {
    await gateway?.close();
    await server?.close();
  });

  // PostgreSQL ends a -- comment at \r as well as \n (scan.l: non_newline [^\n\r]); the scanner only at \n.
  it('refuses a sql:read COMMIT hidden behind a "--" comment that ends at a carriage return, and writes nothing', async () => {
    const refused = await sql({ query: '--x\rCOMMIT /*\nSELECT */; INSERT INTO guarded VALUES (7)' });
    assert.deepEqual([refused.status, refused.body.error_code], [400, 'transaction_control'], JSON.stringify(refused.body));
    assert.equal(await rows(), 0);
  });

  it('refuses a session SET hidden behind a carriage-return comment or inside a nested block comment', async () => {
    for (const query of ['--x\rSET search_path = nowhere /*\nSET LOCAL */', '/* /* */ SET LOCAL */ SET search_path = nowhere']) {
      const refused = await sql({ query }, WRITER);
      assert.deepEqual([refused.status, refused.body.error_code], [400, 'statement_not_allowed'], `${JSON.stringify(query)}: ${JSON.stringify(refused.body)}`);
    }
  });

  it('answers 400 parameter_mismatch (not 503 database_unavailable) to a $n placeholder without a value', async () => {
    const reader = await sql({ query: 'SELECT $1 AS v' });
    assert.deepEqual([reader.status, reader.body.error_code], [400, 'parameter_mismatch'], JSON.stringify(reader.body));
    const writer = await sql({ query: 'SELECT $2::int AS a, ? AS b', params: [1] }, WRITER);
    assert.deepEqual([writer.status, writer.body.error_code], [400, 'parameter_mismatch'], JSON.stringify(writer.body));
    const next = await sql({ query: 'SELECT 1 AS one; SELECT 2 AS two' });
    assert.deepEqual([next.status, next.body.data], [200, [[2]]]);
  });

  it('stops a runaway whose request turned statement_timeout off with SET LOCAL: 400 statement_timeout, and no backend still runs it', async function () {
    this.timeout(30_000);
    for (const key of [READER, WRITER]) {
      const runaway = await sql({ query: 'SET LOCAL statement_timeout = 0; SELECT pg_sleep(25)' }, key);
      assert.deepEqual([runaway.status, runaway.body.error_code], [400, 'statement_timeout'], JSON.stringify(runaway.body));
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const running = await admin("SELECT count(*)::int FROM pg_stat_activity WHERE query LIKE '%pg_sleep(25)%' AND state = 'active' AND pid <> pg_backend_pid()");
      assert.deepEqual(running, [[0]], 'the runaway still runs on the server after its request was answered');
    }
  });
});
