import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import type { ConfigInput } from '@tollgate/middleware';
import pg from 'pg';
import { postJson, startGateway, type RunningGateway } from '../../support/gateway.js';
import { PostgresServer } from '../../support/postgres-server.js';
import { openStalledRequest, waitUntil } from '../../support/stalled-client.js';

const HOG = 'tg-pg-share-hog-01-0123456789abcdef';
const OTHER = 'tg-pg-share-oth-01-0123456789abcdef';
/** A stream far larger than the socket buffers: a client that reads nothing keeps it, and its connection, open. */
const ENDLESS = { query: "SELECT i, repeat('x', 500) AS pad FROM generate_series(1, 5000000) i", format: 'ndjson' };

/**
 * A database's pool is shared by the organizations that reach it. One key that holds every connection — streams it
 * does not read (each held up to sql.streamTimeoutMs, 60 s by default), or slow statements — left every other
 * organization's request waiting for a connection, then answered 503 database_unavailable "cannot be reached".
 */
describe('one organization cannot take every pooled PostgreSQL connection (a throwaway PostgreSQL cluster)', function () {
  this.timeout(60_000);
  let server: PostgresServer;
  let gateway: RunningGateway | undefined;
  const stalled: Socket[] = [];

  const start = async (access?: Record<string, 'write'>) => {
    const config = {
      keys: [
        { key: HOG, org: 'hog' },
        { key: OTHER, org: 'other' },
      ],
      organizations: { hog: {}, other: {} },
      sql: { databases: { main: { kind: 'postgres', url: server.url, pool: { max: 3 }, ...(access ? { access } : {}) } }, default: 'main', timeoutMs: 2_000, streamTimeoutMs: 50_000 },
    } as ConfigInput;
    gateway = await startGateway(config);
    const url = gateway.url;
    return (key: string, body: unknown) => postJson(`${url}/api/sql/query`, body, { authorization: `Bearer ${key}` });
  };
  /** Backends of the pool running a statement (a held stream's portal waits for its next fetch: idle in transaction). */
  const busyBackends = async () => {
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      const { rows } = await client.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'tollgate:main' AND query LIKE '%generate_series%' AND state <> 'idle'");
      return rows[0].n as number;
    } finally {
      await client.end();
    }
  };
  const hold = async (count: number) => {
    for (let i = 0; i < count; i++) stalled.push(await openStalledRequest(gateway!.url, '/api/sql/query', HOG, ENDLESS));
  };

  before(async function () {
    this.timeout(60_000);
    server = await PostgresServer.start();
  });
  after(async () => {
    await server?.close();
  });
  afterEach(async () => {
    for (const socket of stalled.splice(0)) socket.destroy();
    await gateway?.close();
    gateway = undefined;
  });

  it("serves another organization at once while one holds all but one connection with streams it does not read, and answers that one's next request 429 rate_limited", async () => {
    const sql = await start();
    await hold(3);
    await waitUntil('the streams hold their connections', async () => (await busyBackends()) >= 2, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 300)); // the third stream's turn to take one, if it may
    const started = performance.now();
    const other = await sql(OTHER, { query: 'SELECT 42 AS answer' });
    assert.deepEqual([other.status, other.body.data], [200, [[42]]], JSON.stringify(other.body));
    assert.ok(performance.now() - started < 1_500, `the other organization waited ${Math.round(performance.now() - started)} ms`);
    assert.equal(await busyBackends(), 2, 'the third stream waits for a connection of its organization\'s share');
    // Past the share, after waiting as long as a connection is waited for (min(timeoutMs, 5 s)): slow down, not "unreachable".
    const hog = await sql(HOG, { query: 'SELECT 1' });
    assert.equal(hog.status, 429, JSON.stringify(hog.body));
    assert.equal(hog.body.error_code, 'rate_limited');
    assert.deepEqual([hog.headers.get('x-service-reason'), hog.headers.get('retry-after')], ['rate_limited', '1']);
    // Its streams gone, the organization is served again.
    for (const socket of stalled.splice(0)) socket.destroy();
    await waitUntil('the organization is served again', async () => (await sql(HOG, { query: 'SELECT 1' })).status === 200, 10_000);
  });

  it('lets the only organization that reaches a database use every connection of its pool', async () => {
    const sql = await start({ hog: 'write' });
    await hold(3);
    await waitUntil('three streams hold their connections', async () => (await busyBackends()) === 3, 10_000);
    assert.equal((await sql(OTHER, { query: 'SELECT 1' })).body.error_code, 'unknown_database');
  });
});
