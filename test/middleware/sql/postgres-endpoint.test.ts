import assert from 'node:assert/strict';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConfigInput } from '@tollgate/middleware';
import pg from 'pg';
import { postJson, startGateway, type RunningGateway } from '../../support/gateway.js';
import { PgWireCounter } from '../../support/pg-wire-counter.js';
import { PostgresServer } from '../../support/postgres-server.js';
import { SmallTmpfs } from '../../support/small-tmpfs.js';

const WRITER = 'tg-pg-writer-0001-0123456789abcdef';
const READER = 'tg-pg-sqlread-0001-0123456789abcdef';

type Kind = 'sqljs' | 'postgres';

/** The query text is each engine's SQL: where the dialects differ, the shared tests say it per kind. */
const dialect: Record<Kind, { blob: string }> = {
  sqljs: { blob: "SELECT x'00ff' AS b" },
  postgres: { blob: "SELECT decode('00ff', 'hex') AS b" },
};

let server: PostgresServer;

/** A clean public schema before each test: the server outlives the tests. */
async function resetSchema(): Promise<void> {
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  await client.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public');
  await client.end();
}

async function adminQuery(text: string, values: unknown[] = []): Promise<unknown[][]> {
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  try {
    return (await client.query({ text, values, rowMode: 'array' })).rows;
  } finally {
    await client.end();
  }
}

function gatewayConfig(kind: Kind, sql: Record<string, unknown> = {}): ConfigInput {
  const database = kind === 'postgres' ? { kind: 'postgres', url: server.url, pool: { max: 4 } } : {};
  return {
    keys: [
      { key: WRITER, org: 'acme' },
      { key: READER, org: 'acme', scopes: ['sql:read' as const] },
    ],
    organizations: { acme: {} },
    sql: { databases: { main: database }, default: 'main', maxRows: 50, timeoutMs: 2_000, maxStatementBytes: 4096, ...sql },
  } as ConfigInput;
}

describe('the SQL endpoint on both database kinds (a throwaway PostgreSQL cluster)', () => {
  before(async function () {
    this.timeout(60_000);
    server = await PostgresServer.start();
  });
  after(async () => {
    await server?.close();
  });

  for (const kind of ['sqljs', 'postgres'] as const) {
    describe(`POST /api/sql/query on the ${kind} kind: the shared endpoint behaviour`, () => {
      let gateway: RunningGateway;
      let dir: string;
      const sql = (body: unknown, key = WRITER) => postJson(`${gateway.url}/api/sql/query`, body, { authorization: `Bearer ${key}` });
      const names = async () => (await sql({ query: 'SELECT name FROM t ORDER BY id' })).body.data;

      beforeEach(async () => {
        if (kind === 'postgres') await resetSchema();
        dir = mkdtempSync(join(tmpdir(), 'tollgate-pg-shared-'));
        gateway = await startGateway(gatewayConfig(kind), { baseDir: dir });
        assert.equal((await sql({ query: 'CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)' })).status, 200);
      });
      afterEach(async () => {
        await gateway.close();
        rmSync(dir, { recursive: true, force: true });
      });

      it('answers a write with type ok and affected_rows, and a select with names, rows, storage classes and context.db', async () => {
        const insert = await sql({ query: "INSERT INTO t(id, name) VALUES (1, 'ada'), (2, 'grace')" });
        assert.deepEqual(insert.body, { type: 'ok', affected_rows: 2, context: { db: 'main' } });
        const { status, body } = await sql({ query: 'SELECT id, name FROM t ORDER BY id' });
        assert.equal(status, 200);
        assert.deepEqual([body.type, body.column_names, body.data, body.context], ['table', ['id', 'name'], [[1, 'ada'], [2, 'grace']], { db: 'main' }]);
        assert.deepEqual(body.column_types.map((type: { storage: string }) => type.storage), ['integer', 'text']);
      });

      it('binds ? from an array and :name from an object, never inside strings, identifiers or comments', async () => {
        await sql({ query: 'INSERT INTO t(id, name) VALUES (?, ?)', params: [1, 'a?b'] });
        await sql({ query: "INSERT INTO t(id, name) VALUES (:id, :name) -- not :this or ?", params: { id: 2, name: ':name' } });
        const { body } = await sql({ query: "SELECT name, '?' AS q, ':id' AS n FROM t WHERE id = ? OR id = ? ORDER BY id", params: [1, 2] });
        assert.deepEqual(body.data, [['a?b', '?', ':id'], [':name', '?', ':id']]);
      });

      it('runs several statements as one transaction: the last answers, a failure in the second undoes the first and names it', async () => {
        const both = await sql({ query: "INSERT INTO t(id, name) VALUES (1, 'a'); SELECT count(*) AS n FROM t" });
        assert.deepEqual(both.body.data, [[1]]);
        const failed = await sql({ query: "INSERT INTO t(id, name) VALUES (2, 'b'); INSERT INTO t(id, name) VALUES (3, 'a')" });
        assert.equal(failed.status, 400);
        assert.deepEqual([failed.body.type, failed.body.error_code, failed.body.context], ['error', 'constraint_violation', { db: 'main', statement_index: 1 }]);
        assert.deepEqual(await names(), [['a']]);
      });

      it('answers every statement with results: "all"', async () => {
        const { body } = await sql({ query: "INSERT INTO t(id, name) VALUES (1, 'a'); SELECT name FROM t", results: 'all' });
        assert.equal(body.type, 'results');
        assert.deepEqual(body.results.map((result: { type: string }) => result.type), ['ok', 'table']);
        assert.deepEqual(body.results[1].data, [['a']]);
      });

      it('sends integers beyond 2^53 as strings and binary values as base64 with storage blob', async () => {
        const big = await sql({ query: 'SELECT 9007199254740993 AS big, 42 AS small' });
        assert.deepEqual(big.body.data, [['9007199254740993', 42]]);
        assert.deepEqual(big.body.column_types.map((type: { storage: string }) => type.storage), ['integer', 'integer']);
        const blob = await sql({ query: dialect[kind].blob });
        assert.deepEqual(blob.body.data, [['AP8=']]);
        assert.equal(blob.body.column_types[0].storage, 'blob');
      });

      it('refuses every write of a sql:read key with 400 read_only and changes nothing, and lets it read', async () => {
        await sql({ query: "INSERT INTO t(id, name) VALUES (1, 'a')" });
        const refused = await sql({ query: "INSERT INTO t(id, name) VALUES (2, 'b')" }, READER);
        assert.deepEqual([refused.status, refused.body.error_code], [400, 'read_only']);
        assert.deepEqual((await sql({ query: 'SELECT name FROM t' }, READER)).body.data, [['a']]);
        assert.deepEqual(await names(), [['a']]);
      });

      const badInputs: [what: string, body: unknown, status: number, code: string][] = [
        ['a syntax error', { query: 'SELEC 1' }, 400, 'syntax_error'],
        ['an unknown table', { query: 'SELECT * FROM missing' }, 400, 'no_such_table'],
        ['an unknown column', { query: 'SELECT nope FROM t' }, 400, 'no_such_column'],
        ['a result over maxRows', { query: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100) SELECT x FROM c' }, 400, 'too_many_rows'],
        ['more ? than params', { query: 'SELECT name FROM t WHERE id = ? OR id = ?', params: [1] }, 400, 'parameter_mismatch'],
        ['more params than ?', { query: 'SELECT name FROM t WHERE id = ?', params: [1, 2] }, 400, 'parameter_mismatch'],
        ['a transaction statement', { query: "BEGIN; INSERT INTO t(id, name) VALUES (9, 'x')" }, 400, 'transaction_control'],
        ['an unknown database', { query: 'SELECT 1', context: { db: 'nope' } }, 400, 'unknown_database'],
        ['a statement over maxStatementBytes', { query: `SELECT 1 -- ${'x'.repeat(5000)}` }, 413, 'request_too_large'],
        // Both engines read SQL text as a C string: sql.js ran the part before the NUL (200), PostgreSQL closed the connection (503).
        ['a NUL in the text', { query: "INSERT INTO t(id, name) VALUES (9, 'x')\u0000; INSERT INTO t(id, name) VALUES (10, 'y')" }, 400, 'syntax_error'],
      ];
      for (const [what, body, status, code] of badInputs) {
        it(`answers ${status} ${code} for ${what} and changes nothing`, async () => {
          await sql({ query: "INSERT INTO t(id, name) VALUES (1, 'a')" });
          const response = await sql(body);
          assert.equal(response.status, status, JSON.stringify(response.body));
          assert.equal(response.body.error_code ?? response.body.error?.code, code);
          assert.deepEqual(await names(), [['a']]);
        });
      }

      it('answers 422 for a body that is not JSON or has no query', async () => {
        assert.equal((await sql('{not json')).status, 422);
        assert.equal((await sql({ params: [] })).status, 422);
      });

      it('streams NDJSON: a header line, one line per row, then end', async () => {
        await sql({ query: "INSERT INTO t(id, name) VALUES (1, 'a'), (2, 'b')" });
        const response = await sql({ query: 'SELECT id, name FROM t ORDER BY id', format: 'ndjson' });
        assert.equal(response.headers.get('content-type'), 'application/x-ndjson');
        const lines = response.text.trimEnd().split('\n').map((line: string) => JSON.parse(line));
        assert.deepEqual(lines.slice(0, 3).map((line: any) => (Array.isArray(line) ? line : line.column_names)), [['id', 'name'], [1, 'a'], [2, 'b']]);
        assert.deepEqual([lines[3].type, lines[3].row_count], ['end', 2]);
      });
    });
  }

  describe('POST /api/sql/query on the postgres kind: what only a server engine does', () => {
    const gateways: RunningGateway[] = [];
    const start = async (sql: Record<string, unknown> = {}) => {
      const gateway = await startGateway(gatewayConfig('postgres', sql));
      gateways.push(gateway);
      return (body: unknown, init: RequestInit = {}) => postJson(`${gateway.url}/api/sql/query`, body, { authorization: `Bearer ${WRITER}`, ...(init.headers as Record<string, string>) });
    };

    beforeEach(resetSchema);
    afterEach(async () => {
      await Promise.all(gateways.splice(0).map((gateway) => gateway.close()));
    });

    it("lets two Tollgate instances on one PostgreSQL see each other's writes at once", async () => {
      const first = await start();
      const second = await start();
      await first({ query: 'CREATE TABLE shared(n int)' });
      await second({ query: 'INSERT INTO shared VALUES (?)', params: [1] });
      assert.deepEqual((await first({ query: 'SELECT n FROM shared' })).body.data, [[1]]);
      await first({ query: 'INSERT INTO shared VALUES (?)', params: [2] });
      assert.deepEqual((await second({ query: 'SELECT n FROM shared ORDER BY n' })).body.data, [[1], [2]]);
    });

    it("serves a database reached through PostgreSQL's Unix-domain socket (url with ?host=<directory>), writes included, its session reset as over TCP", async () => {
      const sql = await start({ databases: { main: { kind: 'postgres', url: server.socketUrl, pool: { max: 1 } } } });
      assert.equal((await sql({ query: 'CREATE TABLE notes(n int)' })).status, 200);
      assert.deepEqual((await sql({ query: 'INSERT INTO notes VALUES (?), (?)', params: [1, 2] })).body, { type: 'ok', affected_rows: 2, context: { db: 'main' } });
      const changed = await sql({ query: "SELECT set_config('search_path', 'elsewhere', false), inet_client_addr() IS NULL AS through_socket" });
      assert.deepEqual(changed.body.data, [['elsewhere', true]]);
      const next = await sql({ query: "SELECT current_setting('search_path'), (SELECT sum(n)::int FROM notes)" });
      assert.deepEqual([next.status, next.body.data], [200, [['"$user", public', 3]]]);
    });

    it('stops a runaway statement at timeoutMs with 400 statement_timeout and reuses the same connection after it', async () => {
      const sql = await start({ timeoutMs: 500, databases: { main: { kind: 'postgres', url: server.url, pool: { max: 1 } } } });
      const before = (await sql({ query: 'SELECT pg_backend_pid()' })).body.data[0][0];
      const started = performance.now();
      const runaway = await sql({ query: 'SELECT pg_sleep(30)' });
      assert.deepEqual([runaway.status, runaway.body.error_code, runaway.body.context], [400, 'statement_timeout', { db: 'main' }]);
      assert.ok(performance.now() - started < 10_000);
      assert.equal((await sql({ query: 'SELECT pg_backend_pid()' })).body.data[0][0], before);
    });

    it('rolls back a write that ran before a runaway in the same request', async () => {
      const sql = await start({ timeoutMs: 500 });
      await sql({ query: 'CREATE TABLE log(n int)' });
      assert.equal((await sql({ query: 'INSERT INTO log VALUES (1); SELECT pg_sleep(30)' })).body.error_code, 'statement_timeout');
      assert.deepEqual((await sql({ query: 'SELECT count(*) AS n FROM log' })).body.data, [[0]]);
    });

    it('cancels the running statement when its client disconnects', async () => {
      await start({ timeoutMs: 60_000 });
      const url = new URL(`${gateways[0]!.url}/api/sql/query`);
      const body = JSON.stringify({ query: 'SELECT pg_sleep(60)' });
      const req = request(url, { method: 'POST', headers: { authorization: `Bearer ${WRITER}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } });
      req.on('error', () => undefined);
      req.end(body);
      const sleeping = async () => (await adminQuery("SELECT count(*)::int FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(60)' AND state = 'active'"))[0]![0];
      while ((await sleeping()) === 0) await new Promise((resolve) => setImmediate(resolve));
      req.destroy();
      const deadline = performance.now() + 10_000;
      while ((await sleeping()) !== 0) assert.ok(performance.now() < deadline, 'the statement still runs after its client left');
      const sql = (query: string) => postJson(url.href, { query }, { authorization: `Bearer ${WRITER}` });
      assert.equal((await sql('SELECT 1 AS one')).status, 200);
    });

    it('answers 503 database_unavailable at once while PostgreSQL is stopped, and serves again once it is back', async () => {
      const sql = await start();
      assert.equal((await sql({ query: 'SELECT 1 AS one' })).status, 200);
      await server.stop();
      try {
        const started = performance.now();
        const down = await sql({ query: 'SELECT 1 AS one' });
        assert.deepEqual([down.status, down.body.error_code, down.body.context], [503, 'database_unavailable', { db: 'main' }]);
        assert.ok(performance.now() - started < 5_000);
      } finally {
        await server.restart();
      }
      const back = await sql({ query: 'SELECT 1 AS one' });
      assert.deepEqual([back.status, back.body.data], [200, [[1]]]);
    });

    const refused: [what: string, query: string, code: string][] = [
      ['a session SET', 'SET search_path = elsewhere', 'statement_not_allowed'],
      ['a temporary table', 'CREATE TEMP TABLE scratch(x int)', 'temp_object_not_allowed'],
      ['COPY', 'COPY t FROM STDIN', 'statement_not_allowed'],
      ['a savepoint', 'SAVEPOINT s', 'transaction_control'],
    ];
    for (const [what, query, code] of refused) {
      it(`refuses ${what} with 400 ${code} and runs nothing of the request`, async () => {
        const sql = await start();
        await sql({ query: 'CREATE TABLE t(n int)' });
        const response = await sql({ query: `INSERT INTO t VALUES (1); ${query}` });
        assert.deepEqual([response.status, response.body.error_code], [400, code]);
        assert.deepEqual((await sql({ query: 'SELECT count(*)::int AS n FROM t' })).body.data, [[0]]);
      });
    }

    it('answers 400 empty_query for a query of only separators and comments', async () => {
      const sql = await start();
      const response = await sql({ query: ' ; -- nothing\n /* at all */ ;' });
      assert.deepEqual([response.status, response.body.error_code], [400, 'empty_query']);
    });

    it('answers a repeated query text with each request its own values, and still refuses params that do not fit it or a statement the policy refuses', async () => {
      const sql = await start();
      await sql({ query: 'CREATE TABLE kv(k int, v text); INSERT INTO kv VALUES (1, ?), (2, ?)', params: ['one', 'two'] });
      const positional = 'SELECT v FROM kv WHERE k = ?';
      const named = 'SELECT v FROM kv WHERE k = :k OR v = :v';
      for (const [k, v] of [[1, 'one'], [2, 'two'], [1, 'one']] as const) {
        assert.deepEqual((await sql({ query: positional, params: [k] })).body.data, [[v]]);
        assert.deepEqual((await sql({ query: named, params: { k, v: 'none' } })).body.data, [[v]]);
        assert.deepEqual((await sql({ query: named, params: { ':k': 0, '@v': v } })).body.data, [[v]]);
      }
      for (const params of [[], [1, 2]]) {
        const response = await sql({ query: positional, params });
        assert.deepEqual([response.status, response.body.error_code], [400, 'parameter_mismatch']);
      }
      const missing = await sql({ query: named, params: { k: 1 } });
      assert.deepEqual([missing.status, missing.body.error_code, missing.body.error_message], [400, 'parameter_mismatch', 'The query names :v but params has no "v"']);
      // Without params nothing is rewritten: the same text is PostgreSQL's own `?`-free SQL, answered as such.
      const unbound = await sql({ query: positional });
      assert.equal(unbound.status, 400);
      for (let i = 0; i < 2; i++) {
        const refused = await sql({ query: 'SELECT 1; SET search_path = x' });
        assert.deepEqual([refused.status, refused.body.error_code, refused.body.context.statement_index], [400, 'statement_not_allowed', 1]);
      }
    });

    it('reads dollar-quoted bodies, E strings, casts and nested comments as PostgreSQL does', async () => {
      const sql = await start();
      const { status, body } = await sql({ query: "SELECT $$a;?b$$ AS d, E'it\\'s ?' AS e, '5'::int AS c /* outer /* inner ? */ still ; comment */ , ? AS p", params: ['x'] });
      assert.equal(status, 200, JSON.stringify(body));
      assert.deepEqual(body.data, [['a;?b', "it's ?", 5, 'x']]);
    });

    it("does not let one request's session changes (set_config, SET ROLE, advisory locks) reach the next request on the same connection", async () => {
      await adminQuery('DROP ROLE IF EXISTS tenant_a').then(() => adminQuery('CREATE ROLE tenant_a'));
      const sql = await start({ databases: { main: { kind: 'postgres', url: server.url, pool: { max: 1 } } } });
      const changed = await sql({ query: "SELECT set_config('search_path', 'elsewhere', false), set_config('role', 'tenant_a', false), pg_advisory_lock(7), pg_backend_pid()" });
      assert.equal(changed.status, 200, JSON.stringify(changed.body));
      const next = await sql({ query: "SELECT current_setting('search_path'), current_user, (SELECT count(*)::int FROM pg_locks WHERE locktype = 'advisory'), pg_backend_pid()" });
      assert.deepEqual(next.body.data, [['"$user", public', 'postgres', 0, changed.body.data[0][3]]]);
    });

    // What the statement policy cannot see: a DO block (or any function) runs what the policy refuses as a
    // statement. Each kind of session state must be gone for the next request on the same connection.
    const sessionStates: [what: string, change: string, check: string, clean: unknown][] = [
      ["a setting changed by a function's SET", "DO $$ BEGIN EXECUTE 'SET work_mem = ''7MB'''; END $$", "SELECT current_setting('work_mem')", '4MB'],
      ['a LISTEN run by a function', "DO $$ BEGIN EXECUTE 'LISTEN chan'; END $$", 'SELECT count(*)::int FROM pg_listening_channels()', 0],
      ['a temporary table created by a function', "DO $$ BEGIN EXECUTE 'CREATE TEMP TABLE scratch(x int)'; END $$", "SELECT count(*)::int FROM pg_class WHERE relname = 'scratch'", 0],
      ['a statement prepared by a function', "DO $$ BEGIN EXECUTE 'PREPARE kept AS SELECT 1'; END $$", 'SELECT count(*)::int FROM pg_prepared_statements', 0],
      ['a cursor WITH HOLD declared by a function', "DO $$ BEGIN EXECUTE 'DECLARE held CURSOR WITH HOLD FOR SELECT 1'; END $$", "SELECT count(*)::int FROM pg_cursors WHERE name = 'held'", 0],
    ];
    for (const [what, change, check, clean] of sessionStates) {
      it(`does not let ${what} reach the next request on the same connection`, async () => {
        const sql = await start({ databases: { main: { kind: 'postgres', url: server.url, pool: { max: 1 } } } });
        const pid = (await sql({ query: 'SELECT pg_backend_pid()' })).body.data[0][0];
        const changed = await sql({ query: change });
        assert.equal(changed.status, 200, JSON.stringify(changed.body));
        const next = await sql({ query: `SELECT (${check}) AS state, pg_backend_pid() AS pid` });
        assert.deepEqual([next.status, next.body.data], [200, [[clean, pid]]], JSON.stringify(next.body));
      });
    }

    it('does not let lastval() set by a lone INSERT into a serial column reach the next request on the same connection', async () => {
      const sql = await start({ databases: { main: { kind: 'postgres', url: server.url, pool: { max: 1 } } } });
      await sql({ query: 'CREATE TABLE counted(id serial PRIMARY KEY, note text)' });
      assert.equal((await sql({ query: "INSERT INTO counted(note) VALUES ('x')" })).status, 200);
      const next = await sql({ query: 'SELECT lastval()' });
      assert.equal(next.status, 400, JSON.stringify(next.body));
      assert.match(next.body.error_message, /lastval is not yet defined in this session/);
    });

    /** Until PostgreSQL answered everything sent, then a turn of the event loop for Tollgate to read it. */
    async function quiet(counter: PgWireCounter): Promise<void> {
      const deadline = performance.now() + 5_000;
      while (counter.counts.answers < counter.counts.syncs) {
        assert.ok(performance.now() < deadline, `${counter.counts.answers} of ${counter.counts.syncs} units answered`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }

    it("sends a lone statement with the previous request's session reset ahead of it in one Sync unit (one round trip, one answer), and a transaction in one round trip per statement with the reset and BEGIN riding on the first", async () => {
      const counter = await PgWireCounter.start(server.port);
      try {
        // idleResetMs: no background reset between the cases, so each finds the connection its predecessor left.
        const sql = await start({ databases: { main: { kind: 'postgres', url: `postgres://postgres@127.0.0.1:${counter.port}/postgres`, pool: { max: 1, idleResetMs: 60_000 } } } });
        await sql({ query: 'CREATE TABLE t(n int)' });
        // Parse messages: a text without params goes as a simple Query only on a clean connection (below).
        const cases: [query: string, syncs: number, roundTrips: number, parses: number][] = [
          ['SELECT 1 AS one', 1, 1, 2], // Parse DISCARD ALL, Parse the statement, one Sync
          ['INSERT INTO t VALUES (1)', 1, 1, 2],
          // Parse DISCARD ALL, BEGIN and the first statement (one Sync); the second and COMMIT as simple Queries
          ['INSERT INTO t VALUES (2); SELECT count(*) FROM t', 3, 3, 3],
        ];
        for (const [query, syncs, roundTrips, parses] of cases) {
          const before = { ...counter.counts };
          assert.equal((await sql({ query })).status, 200);
          const sent = { syncs: counter.counts.syncs - before.syncs, roundTrips: counter.counts.roundTrips - before.roundTrips, parses: counter.counts.parses - before.parses, resets: counter.counts.resets - before.resets };
          assert.deepEqual(sent, { syncs, roundTrips, parses, resets: 1 }, query);
        }
      } finally {
        await counter.close();
      }
    });

    it('resets a connection a request left idle in the background after pool.idleResetMs: its advisory lock is released without another request, by one reset sent on its own', async () => {
      const counter = await PgWireCounter.start(server.port);
      try {
        const sql = await start({ databases: { main: { kind: 'postgres', url: `postgres://postgres@127.0.0.1:${counter.port}/postgres`, pool: { max: 1, idleResetMs: 100 } } } });
        const taken = await sql({ query: 'SELECT pg_advisory_lock(7), pg_backend_pid()' });
        assert.equal(taken.status, 200, JSON.stringify(taken.body));
        const resetsBefore = counter.counts.resets;
        const locks = async () => (await adminQuery("SELECT count(*)::int FROM pg_locks WHERE locktype = 'advisory'"))[0]![0] as number;
        const deadline = performance.now() + 5_000;
        while ((await locks()) > 0) {
          assert.ok(performance.now() < deadline, 'the advisory lock is still held 5 s after its request answered');
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        await quiet(counter);
        assert.equal(counter.counts.resets - resetsBefore, 1, 'one reset, sent on its own');
        // The reset ran on the request's own session, and the connection it cleaned is the next request's.
        const next = await sql({ query: 'SELECT pg_backend_pid()' });
        assert.deepEqual(next.body.data, [[taken.body.data[0][1]]]);
      } finally {
        await counter.close();
      }
    });

    it('sends a sql:read lone statement with the reset and its read-only opening ahead and COMMIT behind in one round trip, and answers it, its failure and the next request alike', async () => {
      const counter = await PgWireCounter.start(server.port);
      try {
        const databases = { main: { kind: 'postgres', url: `postgres://postgres@127.0.0.1:${counter.port}/postgres`, pool: { max: 1, idleResetMs: 60_000 } } };
        const gateway = await startGateway(gatewayConfig('postgres', { databases }));
        gateways.push(gateway);
        const sql = (body: unknown, key: string) => postJson(`${gateway.url}/api/sql/query`, body, { authorization: `Bearer ${key}` });
        await sql({ query: 'CREATE TABLE r(n int); INSERT INTO r SELECT generate_series(1, 60)' }, WRITER);
        const cases: [body: { query: string; params?: unknown[] }, status: number, answer: unknown, syncs: number, roundTrips: number][] = [
          // [DISCARD ALL, BEGIN READ ONLY, SELECT 1, the statement: one Sync], COMMIT
          [{ query: 'SELECT n FROM r WHERE n = ?', params: [7] }, 200, [[7]], 2, 1],
          [{ query: 'SELECT n FROM r' }, 400, 'too_many_rows', 2, 1], // 60 rows > maxRows 50
          [{ query: 'INSERT INTO r VALUES (0)' }, 400, 'read_only', 2, 1],
          [{ query: 'SELECT count(*)::int FROM r; SELECT max(n) FROM r' }, 200, [[60]], 3, 2], // the reset and the opening ride with the first
          [{ query: 'SELECT count(*)::int FROM r WHERE n > ?', params: [10] }, 200, [[50]], 2, 1],
        ];
        for (const [body, status, answer, syncs, roundTrips] of cases) {
          const before = { ...counter.counts };
          const response = await sql(body, READER);
          assert.deepEqual([response.status, response.body.data ?? response.body.error_code], [status, answer], body.query);
          const sent = { syncs: counter.counts.syncs - before.syncs, roundTrips: counter.counts.roundTrips - before.roundTrips, resets: counter.counts.resets - before.resets };
          assert.deepEqual(sent, { syncs, roundTrips, resets: 1 }, body.query);
        }
        assert.deepEqual((await sql({ query: 'SELECT count(*)::int FROM r' }, WRITER)).body.data, [[60]]);
      } finally {
        await counter.close();
      }
    });

    it('sends a statement without params and without any ";" on a clean connection as one simple Query, and one with params or a ";" (even in a string), or behind a reset, through the extended protocol', async () => {
      const counter = await PgWireCounter.start(server.port);
      try {
        // idleResetMs 0: the connection is reset in the background as soon as a request gave it back.
        const sql = await start({ databases: { main: { kind: 'postgres', url: `postgres://postgres@127.0.0.1:${counter.port}/postgres`, pool: { max: 1, idleResetMs: 0 } } } });
        await sql({ query: 'CREATE TABLE t(n int, s text)' });
        const cases: [body: { query: string; params?: unknown[] }, parses: number, data: unknown][] = [
          [{ query: "INSERT INTO t VALUES (1, 'a')" }, 0, undefined],
          [{ query: 'INSERT INTO t VALUES (?, ?)', params: [2, 'b'] }, 1, undefined],
          [{ query: "INSERT INTO t VALUES (3, ';')" }, 1, undefined],
          [{ query: 'SELECT n, s FROM t ORDER BY n' }, 0, [[1, 'a'], [2, 'b'], [3, ';']]],
          [{ query: 'SELECT n FROM t /* ; */ ORDER BY n' }, 1, [[1], [2], [3]]],
        ];
        for (const [body, parses, data] of cases) {
          await quiet(counter); // the background reset answered: the connection is clean
          const before = { ...counter.counts };
          const response = await sql(body);
          assert.equal(response.status, 200, JSON.stringify(response.body));
          assert.deepEqual([counter.counts.parses - before.parses, counter.counts.resets - before.resets, response.body.data], [parses, 0, data], body.query);
        }
      } finally {
        await counter.close();
      }
    });

    it('keeps statement_timeout on a connection after a request reset it with set_config', async () => {
      const sql = await start({ timeoutMs: 500, databases: { main: { kind: 'postgres', url: server.url, pool: { max: 1 } } } });
      assert.equal((await sql({ query: "SELECT set_config('statement_timeout', '0', false)" })).status, 200);
      const started = performance.now();
      const runaway = await sql({ query: 'SELECT pg_sleep(30)' });
      assert.deepEqual([runaway.status, runaway.body.error_code], [400, 'statement_timeout']);
      assert.ok(performance.now() - started < 10_000);
    });

    it('refuses a sql:read write that first turns its transaction read-write (SET TRANSACTION READ WRITE, SET LOCAL transaction_read_only) with 400 and changes nothing', async () => {
      const gateway = await startGateway(gatewayConfig('postgres'));
      gateways.push(gateway);
      const sql = (body: unknown, key = WRITER) => postJson(`${gateway.url}/api/sql/query`, body, { authorization: `Bearer ${key}` });
      await sql({ query: 'CREATE TABLE guarded(n int)' });
      for (const format of ['json', 'ndjson']) {
        for (const escape of ['SET TRANSACTION READ WRITE', 'SET TRANSACTION ISOLATION LEVEL READ COMMITTED, READ WRITE', 'SET LOCAL transaction_read_only = off', "SET LOCAL transaction_read_only TO 'false'"]) {
          const response = await sql({ query: `${escape}; INSERT INTO guarded VALUES (1)`, format }, READER);
          assert.equal(response.status, 400, `${escape} (${format}): ${JSON.stringify(response.body)}`);
          assert.match(response.body.error_message, /read-write mode must be set before any query/);
        }
      }
      assert.deepEqual((await sql({ query: 'SELECT count(*)::int FROM guarded' })).body.data, [[0]]);
    });

    it('stops a runaway in a transaction and in a sql:read request at timeoutMs after an earlier request turned statement_timeout off with set_config', async () => {
      const gateway = await startGateway(gatewayConfig('postgres', { timeoutMs: 500, databases: { main: { kind: 'postgres', url: server.url, pool: { max: 1 } } } }));
      gateways.push(gateway);
      const sql = (body: unknown, key = WRITER) => postJson(`${gateway.url}/api/sql/query`, body, { authorization: `Bearer ${key}` });
      for (const run of [() => sql({ query: 'SELECT 1; SELECT pg_sleep(30)' }), () => sql({ query: 'SELECT pg_sleep(30)' }, READER)]) {
        assert.equal((await sql({ query: "SELECT set_config('statement_timeout', '0', false)" })).status, 200);
        const started = performance.now();
        const runaway = await run();
        assert.deepEqual([runaway.status, runaway.body.error_code], [400, 'statement_timeout']);
        assert.ok(performance.now() - started < 10_000);
      }
    });

    const sqlstates: [what: string, query: string, code: string][] = [
      ['text that is not an integer (22P02, class 22)', "SELECT 'abc'::int AS n", 'datatype_mismatch'],
      ['a value of the wrong type for its column (42804)', 'INSERT INTO typed(n) VALUES (true)', 'datatype_mismatch'],
      ['a value PostgreSQL cannot build (54000 program_limit_exceeded)', "SELECT repeat('x', 1073741824) AS huge", 'result_too_large'],
    ];
    for (const [what, query, code] of sqlstates) {
      it(`answers 400 ${code} for ${what} and changes nothing`, async () => {
        const sql = await start();
        await sql({ query: 'CREATE TABLE typed(n int); INSERT INTO typed VALUES (1)' });
        const response = await sql({ query: `INSERT INTO typed VALUES (2); ${query}` });
        assert.deepEqual([response.status, response.body.error_code, response.body.context], [400, code, { db: 'main', statement_index: 1 }]);
        assert.deepEqual((await sql({ query: 'SELECT n FROM typed' })).body.data, [[1]]);
      });
    }

    it('answers 400 database_full when the disk under a table fills up (53100), changes nothing and serves the next request', async function () {
      this.timeout(20_000);
      const disk = SmallTmpfs.mount(1_048_576);
      try {
        chownSync(disk.dir, 65534, 65534); // the cluster's user when the tests run as root (postgres-server.ts)
        await adminQuery(`CREATE TABLESPACE small LOCATION '${disk.dir}'`);
        const sql = await start();
        await sql({ query: 'CREATE TABLE filled(pad text) TABLESPACE small; ALTER TABLE filled ALTER pad SET STORAGE PLAIN' });
        const full = await sql({ query: "INSERT INTO filled SELECT repeat('x', 2000) FROM generate_series(1, 2000)" });
        assert.deepEqual([full.status, full.body.error_code], [400, 'database_full'], JSON.stringify(full.body));
        assert.deepEqual((await sql({ query: 'SELECT count(*)::int FROM filled' })).body.data, [[0]]);
        const after = await sql({ query: "CREATE TABLE elsewhere(n int); INSERT INTO elsewhere VALUES (1); SELECT count(*)::int FROM elsewhere" });
        assert.deepEqual([after.status, after.body.data], [200, [[1]]], JSON.stringify(after.body));
      } finally {
        await adminQuery('DROP TABLE IF EXISTS filled').catch(() => undefined);
        await adminQuery('DROP TABLESPACE IF EXISTS small').catch(() => undefined);
        disk.unmount();
      }
    });

    it('answers 503 database_unavailable within timeoutMs and a grace while PostgreSQL hangs (SIGSTOP), and serves again after SIGCONT', async function () {
      this.timeout(30_000);
      const sql = await start({ timeoutMs: 500, databases: { main: { kind: 'postgres', url: server.url, pool: { max: 2 } } } });
      assert.equal((await sql({ query: 'SELECT 1 AS one' })).status, 200);
      // Outside a test runner an unhandled rejection ends the process: a hung server must not cause one.
      const unhandled: unknown[] = [];
      const onUnhandled = (reason: unknown) => unhandled.push(reason);
      process.on('unhandledRejection', onUnhandled);
      server.freeze();
      try {
        for (const query of ['SELECT 1 AS one', 'INSERT INTO nowhere VALUES (1); SELECT 2']) {
          const started = performance.now();
          const hung = await sql({ query });
          assert.deepEqual([hung.status, hung.body.error_code, hung.body.context], [503, 'database_unavailable', { db: 'main' }], JSON.stringify(hung.body));
          assert.ok(performance.now() - started < 6_000, `answered after ${(performance.now() - started).toFixed(0)} ms`);
        }
      } finally {
        server.thaw();
        process.off('unhandledRejection', onUnhandled);
      }
      assert.deepEqual(unhandled, []);
      const back = await sql({ query: 'SELECT 1 AS one' });
      assert.deepEqual([back.status, back.body.data], [200, [[1]]]);
    });

    describe('NDJSON through a server-side cursor', () => {
      const ROWS = 200_000;
      const streamed = `SELECT i, nextval('produced') AS n, repeat('x', 200) AS pad FROM generate_series(1, ${ROWS}) i`;
      /** How many rows PostgreSQL has produced so far: a sequence moves outside any transaction. */
      const produced = async () => Number((await adminQuery('SELECT last_value FROM produced'))[0]![0]);

      it('makes PostgreSQL produce rows only as fast as the client reads them, past maxRows, and ends with every row', async function () {
        this.timeout(60_000);
        await start();
        await adminQuery('CREATE SEQUENCE produced');
        const { socket, received } = rawRequest(gateways[0]!.url, { query: streamed, format: 'ndjson' });
        await new Promise((resolve) => socket.once('data', resolve));
        socket.pause();
        // Wait until PostgreSQL stops producing: the stream waits for credit, the portal for the next Execute.
        let last = -1;
        for (let stable = 0; stable < 4; ) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          const now = await produced();
          stable = now === last ? stable + 1 : 0;
          last = now;
        }
        assert.ok(last < 60_000, `PostgreSQL produced ${last} of ${ROWS} rows (~${ROWS * 220} bytes) while the client read nothing`);
        socket.resume();
        const lines = bodyOf(await received).trimEnd().split('\n');
        assert.equal(lines.length, ROWS + 2);
        assert.deepEqual(JSON.parse(lines[0]!), { type: 'table', column_names: ['i', 'n', 'pad'], column_types: [{ declared: 'int4' }, { declared: 'int8' }, { declared: 'text' }] });
        assert.deepEqual(JSON.parse(lines[ROWS]!), [ROWS, ROWS, 'x'.repeat(200)]);
        assert.deepEqual(JSON.parse(lines[ROWS + 1]!), { type: 'end', row_count: ROWS, column_types: [{ declared: 'int4', storage: 'integer' }, { declared: 'int8', storage: 'integer' }, { declared: 'text', storage: 'text' }], context: { db: 'main' } });
        assert.equal(await produced(), ROWS);
      });

      it('gives the connection back and stops the statement when the client leaves mid-stream', async () => {
        const sql = await start({ databases: { main: { kind: 'postgres', url: server.url, pool: { max: 1 } } } });
        await adminQuery('CREATE SEQUENCE produced');
        const { socket } = rawRequest(gateways[0]!.url, { query: streamed, format: 'ndjson' });
        socket.on('error', () => undefined);
        await new Promise((resolve) => socket.once('data', resolve));
        socket.destroy();
        const started = performance.now();
        const next = await sql({ query: 'SELECT 42 AS answer' });
        assert.deepEqual([next.status, next.body.data], [200, [[42]]]);
        assert.ok(performance.now() - started < 5_000);
        assert.deepEqual(await adminQuery("SELECT count(*)::int FROM pg_stat_activity WHERE query LIKE '%generate_series%' AND state <> 'idle' AND pid <> pg_backend_pid()"), [[0]]);
        assert.ok((await produced()) < ROWS);
      });

      it('answers a statement without rows as its ok line and end', async () => {
        const sql = await start();
        await sql({ query: 'CREATE TABLE t(n int)' });
        const response = await sql({ query: 'INSERT INTO t VALUES (1), (2)', format: 'ndjson' });
        assert.deepEqual(response.text.trimEnd().split('\n').map((line: string) => JSON.parse(line)), [
          { type: 'ok', affected_rows: 2, context: { db: 'main' } },
          { type: 'end', row_count: 0, context: { db: 'main' } },
        ]);
      });
    });
  });
});

/** A request on a raw socket the test can pause (fetch reads ahead) or drop mid-answer. */
function rawRequest(baseUrl: string, body: unknown): { socket: Socket; received: Promise<string> } {
  const url = new URL(baseUrl);
  const payload = JSON.stringify(body);
  const socket = connect(Number(url.port), url.hostname);
  socket.write(`POST /api/sql/query HTTP/1.1\r\nhost: ${url.host}\r\nauthorization: Bearer ${WRITER}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(payload)}\r\nconnection: close\r\n\r\n${payload}`);
  const received = new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
  });
  return { socket, received };
}

/** The body of a chunked HTTP/1.1 answer (ASCII here, so string offsets are byte offsets). */
function bodyOf(raw: string): string {
  const chunked = raw.slice(raw.indexOf('\r\n\r\n') + 4);
  let body = '';
  for (let at = 0; ; ) {
    const lineEnd = chunked.indexOf('\r\n', at);
    const size = parseInt(chunked.slice(at, lineEnd), 16);
    if (!size) return body;
    body += chunked.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
}
