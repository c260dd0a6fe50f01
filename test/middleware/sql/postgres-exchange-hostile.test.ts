import assert from 'node:assert/strict';
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { ConfigInput } from '@tollgate/middleware';
import pg from 'pg';
import { postJson, startGateway, type RunningGateway } from '../../support/gateway.js';
import { PostgresServer } from '../../support/postgres-server.js';
import { Exchange } from '../../../packages/middleware/src/sql/postgres-exchange.js';
import { SessionResetFailed } from '../../../packages/middleware/src/sql/postgres-session-reset.js';

const WRITER = 'tg-pg-hostile-0001-0123456789abcdef';

/**
 * A TCP relay to PostgreSQL that, once told to, passes the server's messages up to and including the next
 * `answers` ReadyForQuery messages and then drops everything else until told otherwise: a server that hangs
 * after an answer (and a reply that never arrives).
 */
class HangingRelay {
  #holdAfter: number | undefined;
  readonly #sockets = new Set<Socket>();
  private constructor(
    readonly server: Server,
    readonly port: number,
  ) {}

  static async start(targetPort: number): Promise<HangingRelay> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const relay = new HangingRelay(server, (server.address() as { port: number }).port);
    server.on('connection', (client) => relay.#relay(client, targetPort));
    return relay;
  }

  /** From now on, the server's answers stop after `answers` more ReadyForQuery messages. */
  hangAfter(answers: number): void {
    this.#holdAfter = answers;
  }

  #relay(client: Socket, targetPort: number): void {
    const upstream = connect(targetPort, '127.0.0.1');
    this.#sockets.add(client).add(upstream);
    client.pipe(upstream);
    let pending = Buffer.alloc(0);
    upstream.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      let offset = 0;
      while (pending.length - offset >= 5) {
        const length = pending.readInt32BE(offset + 1);
        if (pending.length - offset < 1 + length) break;
        const type = String.fromCharCode(pending[offset]!);
        if (this.#holdAfter === 0) {
          pending = Buffer.alloc(0);
          return; // hung: nothing more reaches the client
        }
        client.write(pending.subarray(offset, offset + 1 + length));
        if (type === 'Z' && this.#holdAfter !== undefined) this.#holdAfter--;
        offset += 1 + length;
      }
      pending = pending.subarray(offset);
    });
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/**
 * The postgres kind's Exchange (sql/postgres-exchange.ts) queues its statement, behind the session reset, and
 * COMMIT/ROLLBACK on pg's Client and writes them in one write: what a failing statement, a failing reset, a session
 * ended mid-request, a flood on one connection and a result far over maxRows do to the next request on the same
 * connection.
 */
describe('the postgres exchange under hostile requests (a throwaway PostgreSQL cluster)', () => {
  let server: PostgresServer;
  const gateways: RunningGateway[] = [];
  const start = async (pool = 1, sql: Record<string, unknown> = {}, url = server.url) => {
    const config = {
      keys: [{ key: WRITER, org: 'acme' }],
      organizations: { acme: {} },
      sql: { databases: { main: { kind: 'postgres', url, pool: { max: pool } } }, default: 'main', maxRows: 50, timeoutMs: 2_000, maxStatementBytes: 4096, ...sql },
    } as ConfigInput;
    const gateway = await startGateway(config);
    gateways.push(gateway);
    return (body: unknown) => postJson(`${gateway.url}/api/sql/query`, body, { authorization: `Bearer ${WRITER}` });
  };

  before(async function () {
    this.timeout(60_000);
    server = await PostgresServer.start();
  });
  after(async () => {
    await server?.close();
  });
  beforeEach(async () => {
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    await client.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public');
    await client.end();
  });
  afterEach(async () => {
    await Promise.all(gateways.splice(0).map((gateway) => gateway.close()));
  });

  // A session advisory lock outlives the rollback of the transaction that took it: only the reset frees it.
  const lockThenFail: [what: string, body: unknown][] = [
    ['a lone statement that takes a session lock and then fails', { query: "DO $$ BEGIN PERFORM pg_advisory_lock(41); RAISE EXCEPTION 'boom'; END $$" }],
    ['a lone statement with params that takes a session lock and then fails', { query: 'SELECT pg_advisory_lock(?::bigint), 1 / 0', params: [41] }],
    ['a transaction whose first statement takes a session lock and whose second fails', { query: 'SELECT pg_advisory_lock(41); SELECT 1 / 0' }],
  ];
  for (const [what, body] of lockThenFail) {
    it(`answers 400 to ${what}, and the next request on the same connection holds no lock`, async () => {
      const sql = await start();
      const pid = (await sql({ query: 'SELECT pg_backend_pid()' })).body.data[0][0];
      const failed = await sql(body);
      assert.equal(failed.status, 400, JSON.stringify(failed.body));
      const next = await sql({ query: "SELECT (SELECT count(*)::int FROM pg_locks WHERE locktype = 'advisory'), pg_backend_pid()" });
      assert.deepEqual([next.status, next.body.data], [200, [[0, pid]]], JSON.stringify(next.body));
    });
  }

  it('answers a statement that ends its own session with a clear error (no 500), and serves the next request on a new connection', async () => {
    const sql = await start();
    const pid = (await sql({ query: 'SELECT pg_backend_pid()' })).body.data[0][0];
    const ended = await sql({ query: 'SELECT pg_terminate_backend(pg_backend_pid())' });
    assert.ok([400, 503].includes(ended.status), `${ended.status} ${JSON.stringify(ended.body)}`);
    assert.equal(typeof ended.body.error_code, 'string');
    const next = await sql({ query: 'SELECT pg_backend_pid()' });
    assert.equal(next.status, 200, JSON.stringify(next.body));
    assert.notEqual(next.body.data[0][0], pid, 'a new connection');
  });

  it('answers 200 requests sent at once on a pool of one connection, each with its own values, one connection throughout', async () => {
    const sql = await start();
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => sql({ query: 'SELECT ?::int AS n, pg_backend_pid() AS pid', params: [i] })));
    assert.deepEqual(
      answers.map((answer) => [answer.status, answer.body.data?.[0]?.[0]]),
      answers.map((_, i) => [200, i]),
    );
    assert.equal(new Set(answers.map((answer) => answer.body.data[0][1])).size, 1);
  });

  it('answers interleaved failing and passing requests sent at once on a pool of one: each its own outcome, no lock left', async () => {
    const sql = await start();
    const bodies = Array.from({ length: 60 }, (_, i) => (i % 3 === 0 ? { query: 'SELECT pg_advisory_lock(?::bigint), 1 / 0', params: [i] } : i % 3 === 1 ? { query: "SELECT ?::int; SELECT 'x'::int", params: [i] } : { query: 'SELECT ?::int AS n', params: [i] }));
    const answers = await Promise.all(bodies.map(sql));
    answers.forEach((answer, i) => {
      if (i % 3 === 2) assert.deepEqual([answer.status, answer.body.data], [200, [[i]]], `request ${i}`);
      else assert.equal(answer.status, 400, `request ${i}: ${JSON.stringify(answer.body)}`);
    });
    const locks = await sql({ query: "SELECT count(*)::int FROM pg_locks WHERE locktype = 'advisory'" });
    assert.deepEqual(locks.body.data, [[0]]);
  });

  it('answers 400 too_many_rows to a result of 200,000 rows over maxRows 50 within the timeout, and the connection serves the next request', async () => {
    const sql = await start();
    const pid = (await sql({ query: 'SELECT pg_backend_pid()' })).body.data[0][0];
    const many = await sql({ query: 'SELECT g, repeat(?, 100) FROM generate_series(1, 200000) g', params: ['x'] });
    assert.deepEqual([many.status, many.body.error_code], [400, 'too_many_rows'], JSON.stringify(many.body));
    const next = await sql({ query: 'SELECT 1, pg_backend_pid()' });
    assert.deepEqual([next.status, next.body.data], [200, [[1, pid]]]);
  });

  it('runs a transaction whose middle statement returns 5,000 rows (not answered: maxRows bounds answers, its rows are dropped) and answers its last', async () => {
    const sql = await start();
    await sql({ query: 'CREATE TABLE kept(n int)' });
    const many = await sql({ query: 'INSERT INTO kept VALUES (1); SELECT g FROM generate_series(1, 5000) g; INSERT INTO kept VALUES (2)' });
    assert.deepEqual([many.status, many.body.affected_rows], [200, 1], JSON.stringify(many.body));
    assert.deepEqual((await sql({ query: 'SELECT count(*)::int FROM kept' })).body.data, [[2]]);
  });

  it('never runs a statement whose session reset ahead of it failed: the exchange fails with SessionResetFailed and nothing is written', async () => {
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      await client.query('CREATE TABLE IF NOT EXISTS written(n int)');
      await client.query('BEGIN'); // DISCARD ALL refuses to run inside a transaction block (25001)
      const insert = { text: 'INSERT INTO written VALUES (1)', values: [], keyword: 'INSERT', sources: [] };
      const exchange = new Exchange(insert, 10, 5_000, { resetsAhead: true }).send(client as unknown as pg.PoolClient);
      await assert.rejects(exchange.answer, (error: Error) => error instanceof SessionResetFailed && /DISCARD ALL cannot run inside a transaction block/.test(error.message));
      await client.query('ROLLBACK');
      assert.deepEqual((await client.query('SELECT count(*)::int AS n FROM written')).rows, [{ n: 0 }]);
    } finally {
      await client.end();
    }
  });

  it("answers the next request on another connection when a request left its session so that the reset fails (1,000 temporary tables and a 1 ms statement_timeout): the statement runs once, the request answers 200", async () => {
    // idleResetMs: the next request, not the background reset, meets the session the first one left.
    const sql = await start(1, { databases: { main: { kind: 'postgres', url: server.url, pool: { max: 1, idleResetMs: 60_000 } } } });
    await sql({ query: 'CREATE TABLE counted(n int)' });
    const poisoned = await sql({ query: "DO $$ BEGIN FOR i IN 1..1000 LOOP EXECUTE format('CREATE TEMP TABLE scratch%s(x int)', i); END LOOP; PERFORM set_config('statement_timeout', '1', false); END $$" });
    assert.equal(poisoned.status, 200, JSON.stringify(poisoned.body));
    const backends = async () => {
      const admin = new pg.Client({ connectionString: server.url });
      await admin.connect();
      try {
        return (await admin.query("SELECT pid FROM pg_stat_activity WHERE application_name = 'tollgate:main'")).rows.map((row: { pid: number }) => row.pid);
      } finally {
        await admin.end();
      }
    };
    const before = await backends();
    const next = await sql({ query: 'INSERT INTO counted VALUES (1)' });
    assert.deepEqual([next.status, next.body.affected_rows], [200, 1], JSON.stringify(next.body));
    assert.deepEqual((await sql({ query: 'SELECT count(*)::int FROM counted' })).body.data, [[1]]);
    const [poisonedPid] = before;
    assert.equal(before.length, 1);
    const deadline = performance.now() + 5_000;
    while ((await backends()).includes(poisonedPid!)) {
      assert.ok(performance.now() < deadline, 'the connection whose reset failed is still open after 5 s');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });

  it('closes an idle connection whose background reset fails (the same poisoned session), and the next request answers 200 on a new one', async () => {
    const sql = await start(1, { databases: { main: { kind: 'postgres', url: server.url, pool: { max: 1, idleResetMs: 25 } } } });
    const pid = (await sql({ query: 'SELECT pg_backend_pid()' })).body.data[0][0];
    const poisoned = await sql({ query: "DO $$ BEGIN FOR i IN 1..1000 LOOP EXECUTE format('CREATE TEMP TABLE scratch%s(x int)', i); END LOOP; PERFORM set_config('statement_timeout', '1', false); END $$" });
    assert.equal(poisoned.status, 200, JSON.stringify(poisoned.body));
    await new Promise((resolve) => setTimeout(resolve, 500)); // the background reset ran, and failed
    const next = await sql({ query: 'SELECT pg_backend_pid(), current_setting(?)', params: ['statement_timeout'] });
    assert.equal(next.status, 200, JSON.stringify(next.body));
    assert.notEqual(next.body.data[0][0], pid, 'a new connection');
    assert.equal(next.body.data[0][1], '2s', "the connection string's statement_timeout (timeoutMs), not the poisoned 1 ms");
  });

  it('drops a connection whose background session reset never gets an answer (a server hung after a request answered) at the read timeout, answers 503 database_unavailable meanwhile, and serves the next request on a new one', async function () {
    this.timeout(15_000);
    const relay = await HangingRelay.start(server.port);
    try {
      // timeoutMs 300: the reset's hung-server timeout fires at 300 ms + the 2 s grace.
      const sql = await start(1, { timeoutMs: 300 }, `postgres://postgres@127.0.0.1:${relay.port}/postgres`);
      const pid = (await sql({ query: 'SELECT pg_backend_pid()' })).body.data[0][0];
      const answered = await sql({ query: 'SELECT 7' });
      assert.deepEqual([answered.status, answered.body.data], [200, [[7]]]);
      // The connection idles dirty; its background reset (pool.idleResetMs, 25 ms) goes out and its answer is lost.
      relay.hangAfter(0);
      await new Promise((resolve) => setTimeout(resolve, 300));
      relay.hangAfter(Infinity);
      // Until the timer drops it, the pool's one connection waits for that answer: a request queued behind it
      // answers 503 database_unavailable (retryable), never hangs nor runs on the dirty session.
      const started = performance.now();
      let next = await sql({ query: 'SELECT pg_backend_pid()' });
      while (next.status !== 200 && performance.now() - started < 5_000) {
        assert.deepEqual([next.status, next.body.error_code], [503, 'database_unavailable'], JSON.stringify(next.body));
        next = await sql({ query: 'SELECT pg_backend_pid()' });
      }
      const waited = performance.now() - started;
      assert.equal(next.status, 200, JSON.stringify(next.body));
      assert.notEqual(next.body.data[0][0], pid, 'the connection whose reset hung was not reused');
      assert.ok(waited < 4_000, `served after ${Math.round(waited)} ms`);
    } finally {
      await Promise.all(gateways.splice(0).map((gateway) => gateway.close()));
      await relay.close();
    }
  });
});
