import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { postJson, startGateway, type RunningGateway } from '../../support/gateway.js';

const ACME = 'tg-acme-results-0001-0123456789abcdef';
const GLOBEX = 'tg-globex-results-0001-0123456789abcdef';

describe('POST /api/sql/query: bounded, typed and streamed results', () => {
  let gateway: RunningGateway;
  const sql = (body: Record<string, unknown>, key = ACME, headers: Record<string, string> = {}) => postJson(`${gateway.url}/api/sql/query`, body, { authorization: `Bearer ${key}`, ...headers });

  beforeEach(async () => {
    gateway = await startGateway({
      keys: [
        { key: ACME, org: 'acme' },
        { key: GLOBEX, org: 'globex' },
      ],
      organizations: { acme: {}, globex: {} },
      sql: { databases: { main: { access: { acme: 'write' } }, other: { access: { globex: 'write' } } }, default: 'main', maxRows: 50, maxResultBytes: 1_048_576 },
    });
  });
  afterEach(() => gateway.close());

  describe('maxResultBytes', () => {
    it('answers SELECT zeroblob(300000000) with 400 result_too_large at once, without building it', async () => {
      await sql({ query: 'SELECT 1' }); // the database is up: only the query is timed
      const started = performance.now();
      const { status, body } = await sql({ query: 'SELECT zeroblob(300000000) AS huge' });
      const elapsed = performance.now() - started;
      assert.equal(status, 400);
      assert.equal(body.error_code, 'result_too_large');
      assert.match(body.error_message, /1048576 bytes \(sql\.maxResultBytes\)/);
      assert.ok(elapsed < 1_000, `answered in ${elapsed.toFixed(0)} ms`);
      // The other organization's database was never held up.
      assert.equal((await sql({ query: 'SELECT 1' }, GLOBEX, {})).status, 400); // not granted main
      assert.equal((await postJson(`${gateway.url}/api/sql/query`, { query: 'SELECT 1', context: { db: 'other' } }, { authorization: `Bearer ${GLOBEX}` })).status, 200);
    });

    it('counts the whole answer: many rows that together pass the limit fail, and the request changes nothing', async () => {
      await sql({ query: 'CREATE TABLE t(x)' });
      const { status, body } = await sql({ query: "INSERT INTO t VALUES (1); SELECT printf('%.30000c', 'x') FROM (SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9 UNION ALL SELECT 10 UNION ALL SELECT 11 UNION ALL SELECT 12 UNION ALL SELECT 13 UNION ALL SELECT 14 UNION ALL SELECT 15 UNION ALL SELECT 16 UNION ALL SELECT 17 UNION ALL SELECT 18 UNION ALL SELECT 19 UNION ALL SELECT 20 UNION ALL SELECT 21 UNION ALL SELECT 22 UNION ALL SELECT 23 UNION ALL SELECT 24 UNION ALL SELECT 25 UNION ALL SELECT 26 UNION ALL SELECT 27 UNION ALL SELECT 28 UNION ALL SELECT 29 UNION ALL SELECT 30 UNION ALL SELECT 31 UNION ALL SELECT 32 UNION ALL SELECT 33 UNION ALL SELECT 34 UNION ALL SELECT 35 UNION ALL SELECT 36)" });
      assert.equal(status, 400);
      assert.equal(body.error_code, 'result_too_large');
      assert.deepEqual((await sql({ query: 'SELECT count(*) FROM t' })).body.data, [[0]]);
      assert.equal((await sql({ query: "SELECT printf('%.30000c', 'x')" })).status, 200);
    });
    it('counts column names and declared types: long ones repeated by SELECT *, *, * or by results "all" answer result_too_large, streamed too', async () => {
      const name = 'c'.repeat(100_000);
      const type = 't'.repeat(400_000);
      const create = `CREATE TABLE wide(${[1, 2, 3, 4, 5].map((n) => `"${name}${n}" INT`).join(', ')}); CREATE TABLE typed(a "${type}")`;
      assert.equal((await sql({ query: create })).status, 200);
      const once = await sql({ query: 'SELECT * FROM wide' });
      assert.equal(once.status, 200);
      assert.equal(once.body.column_names.length, 5);
      for (const [what, body] of [
        ['the names three times', { query: 'SELECT *, *, * FROM wide' }],
        ['every statement of several', { query: 'SELECT * FROM wide; SELECT * FROM wide; SELECT * FROM wide', results: 'all' }],
        ['the header of a stream', { query: 'SELECT *, *, * FROM wide', format: 'ndjson' }],
        ['a declared type three times', { query: 'SELECT a, a, a FROM typed' }],
      ] as const) {
        const { status, body: answer } = await sql(body);
        assert.deepEqual([status, answer.error_code], [400, 'result_too_large'], what);
      }
    });
  });

  describe('column types', () => {
    it('tells a BLOB from TEXT and a big integer from a numeric string, with declared types and storage classes', async () => {
      await sql({ query: 'CREATE TABLE files(id INTEGER PRIMARY KEY, name TEXT, body BLOB, size INT, anything)' });
      await sql({ query: "INSERT INTO files VALUES (1, '3q2+7w==', x'DEADBEEF', 9223372036854775807, 'text'), (2, '9223372036854775807', x'00', 1, x'01'), (3, NULL, NULL, NULL, NULL)" });
      const { body } = await sql({ query: 'SELECT id, name, body, size, anything, length(body) AS n FROM files ORDER BY name' });
      assert.deepEqual(body.column_names, ['id', 'name', 'body', 'size', 'anything', 'n']);
      assert.deepEqual(body.data, [
        [3, null, null, null, null, null],
        [1, '3q2+7w==', '3q2+7w==', '9223372036854775807', 'text', 4],
        [2, '9223372036854775807', 'AA==', 1, 'AQ==', 1],
      ]);
      assert.deepEqual(body.column_types, [
        { declared: 'INTEGER', storage: 'integer' },
        { declared: 'TEXT', storage: 'text' },
        { declared: 'BLOB', storage: 'blob' },
        { declared: 'INT', storage: 'integer' },
        { declared: null, storage: 'mixed', storage_by_row: [null, 'text', 'blob'] },
        { declared: null, storage: 'integer' },
      ]);
    });
  });

  describe('declared types', () => {
    const cases: [string, (string | null)[]][] = [
      ['SELECT * FROM p', ['INTEGER', 'VARCHAR(20)', 'BLOB', 'DATE']],
      ['SELECT name, id FROM p ORDER BY name', ['VARCHAR(20)', 'INTEGER']],
      ['SELECT born, photo FROM p ORDER BY born DESC', ['DATE', 'BLOB']],
      ['SELECT p.name, q.note FROM p JOIN q ON q.pid = p.id', ['VARCHAR(20)', 'TEXT']],
      ['SELECT * FROM v', ['INTEGER', 'VARCHAR(20)']],
      ['WITH c AS (SELECT name FROM p) SELECT * FROM c', ['VARCHAR(20)']],
      ['SELECT name, count(*) FROM p GROUP BY name', ['VARCHAR(20)', null]],
      ['SELECT id + 1, upper(name), ? FROM p', [null, null, null]],
    ];
    it('reads the schema again after it changed, also through a statement sent again (a root page is reused)', async () => {
      const drop = 'DROP TABLE IF EXISTS a';
      await sql({ query: drop });
      await sql({ query: 'CREATE TABLE a(x BLOB)' });
      assert.deepEqual((await sql({ query: 'SELECT x FROM a' })).body.column_types, [{ declared: 'BLOB', storage: null }]);
      await sql({ query: drop }); // kept: this run goes through the prepared statement
      await sql({ query: 'CREATE TABLE b(y TEXT); CREATE TABLE a(x DATE)' });
      assert.deepEqual((await sql({ query: 'SELECT y FROM b' })).body.column_types, [{ declared: 'TEXT', storage: null }]);
      assert.deepEqual((await sql({ query: 'SELECT x FROM a' })).body.column_types, [{ declared: 'DATE', storage: null }]);
    });

    for (const [query, declared] of cases) {
      it(`reads ${JSON.stringify(declared)} for ${query}`, async () => {
        await sql({ query: "CREATE TABLE p(id INTEGER PRIMARY KEY, name VARCHAR(20), photo BLOB, born DATE); CREATE INDEX p_name ON p(name); CREATE TABLE q(pid INTEGER, note TEXT); CREATE VIEW v AS SELECT id, name FROM p; INSERT INTO p VALUES (1, 'a', x'00', '2000-01-01'); INSERT INTO q VALUES (1, 'n')" });
        const { status, body } = await sql({ query, ...(query.includes('?') ? { params: [1] } : {}) });
        assert.equal(status, 200);
        assert.deepEqual(body.column_types.map((type: { declared: string | null }) => type.declared), declared);
      });
    }
  });

  describe('results: "all"', () => {
    it("answers every statement's result in order, each in the contract's shape", async () => {
      const { status, body } = await sql({ query: "CREATE TABLE t(x TEXT); INSERT INTO t VALUES ('a'), ('b'); SELECT x FROM t; SELECT count(*) AS n FROM t", results: 'all' });
      assert.equal(status, 200);
      assert.deepEqual(body, {
        type: 'results',
        results: [
          { type: 'ok', affected_rows: 0, context: { db: 'main' } },
          { type: 'ok', affected_rows: 2, context: { db: 'main' } },
          { type: 'table', column_names: ['x'], column_types: [{ declared: 'TEXT', storage: 'text' }], data: [['a'], ['b']], context: { db: 'main' } },
          { type: 'table', column_names: ['n'], column_types: [{ declared: null, storage: 'integer' }], data: [[2]], context: { db: 'main' } },
        ],
        context: { db: 'main' },
      });
    });

    it('answers them as JSON even when Accept asks for NDJSON, and refuses format ndjson with them (422)', async () => {
      const negotiated = await sql({ query: 'SELECT 1 AS a; SELECT 2 AS b', results: 'all' }, ACME, { accept: 'application/x-ndjson' });
      assert.equal(negotiated.headers.get('content-type'), 'application/json');
      assert.equal(negotiated.body.results.length, 2);
      const refused = await sql({ query: 'SELECT 1', results: 'all', format: 'ndjson' });
      assert.equal(refused.status, 422);
      assert.deepEqual(refused.body.detail[0].loc, ['body', 'results']);
    });

    it('keeps the default answer exactly the last statement’s', async () => {
      const { body } = await sql({ query: 'SELECT 1 AS a; SELECT 2 AS b' });
      assert.deepEqual(body, { type: 'table', column_names: ['b'], column_types: [{ declared: null, storage: 'integer' }], data: [[2]], context: { db: 'main' } });
    });
  });

  describe('NDJSON streaming', () => {
    const ROWS = 300_000;
    const bigQuery = `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${ROWS}) SELECT i, printf('%0100d', i) AS padded FROM n`;

    it('streams a result far past maxRows and maxResultBytes: header, one line per row, then end', async () => {
      const response = await fetch(`${gateway.url}/api/sql/query`, { method: 'POST', headers: { authorization: `Bearer ${ACME}`, accept: 'application/x-ndjson', 'content-type': 'application/json' }, body: JSON.stringify({ query: bigQuery }) });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), 'application/x-ndjson');
      const lines = (await response.text()).trimEnd().split('\n');
      assert.equal(lines.length, ROWS + 2);
      assert.deepEqual(JSON.parse(lines[0]!), { type: 'table', column_names: ['i', 'padded'], column_types: [{ declared: null }, { declared: null }] });
      assert.deepEqual(JSON.parse(lines[1]!), [1, '1'.padStart(100, '0')]);
      assert.deepEqual(JSON.parse(lines[ROWS]!), [ROWS, String(ROWS).padStart(100, '0')]);
      assert.deepEqual(JSON.parse(lines[ROWS + 1]!), { type: 'end', row_count: ROWS, column_types: [{ declared: null, storage: 'integer' }, { declared: null, storage: 'text' }], context: { db: 'main' } });
    });

    it('holds back while the client does not read: what waits in memory stays a few chunks, not the result', async () => {
      const { socket, received } = rawRequest(gateway.url, { query: bigQuery, format: 'ndjson' });
      const serverSocket = await new Promise<Socket>((resolve) => gateway.server.once('connection', resolve));
      socket.pause();
      // Wait until the server stops writing: the worker is blocked on credit.
      let last = -1;
      for (let stable = 0; stable < 4; ) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const written = serverSocket.bytesWritten;
        stable = written === last && written > 0 ? stable + 1 : 0;
        last = written;
      }
      const total = ROWS * 112;
      assert.ok(last < 8 * 1_048_576, `${last} bytes left the server while the client read nothing (result ~${total})`);
      socket.resume();
      const text = await received;
      assert.match(text, /"type":"end","row_count":300000/);
    });

    it('stops a stream whose client went away and frees the database for the next request', async () => {
      await sql({ query: 'CREATE TABLE kept(x); INSERT INTO kept VALUES (1)' });
      const { socket } = rawRequest(gateway.url, { query: bigQuery, format: 'ndjson' });
      socket.on('error', () => undefined);
      await new Promise((resolve) => socket.once('data', resolve));
      socket.pause();
      socket.destroy();
      const started = performance.now();
      const { status, body } = await sql({ query: 'INSERT INTO kept VALUES (2); SELECT count(*) FROM kept' });
      assert.equal(status, 200);
      assert.deepEqual(body.data, [[2]]);
      assert.ok(performance.now() - started < 5_000);
    });

    it('frees the database after sql.streamTimeoutMs when the client never reads, and ends the stream with an error line', async () => {
      await gateway.close();
      gateway = await startGateway({ keys: [{ key: ACME, org: 'acme' }], organizations: { acme: {} }, sql: { databases: { main: {} }, default: 'main', streamTimeoutMs: 300 } });
      await sql({ query: 'SELECT 1' });
      const { socket, received } = rawRequest(gateway.url, { query: bigQuery, format: 'ndjson' });
      socket.pause();
      const started = performance.now();
      const { status, body } = await sql({ query: 'SELECT 42 AS answer' });
      assert.equal(status, 200);
      assert.deepEqual(body.data, [[42]]);
      assert.ok(performance.now() - started < 5_000);
      socket.resume();
      const last = JSON.parse(bodyOf(await received).trimEnd().split('\n').at(-1)!);
      assert.equal(last.type, 'error');
      assert.equal(last.error_code, 'statement_timeout');
      assert.match(last.error_message, /300 ms \(sql\.streamTimeoutMs\)/);
    });

    it("keeps sql.timeoutMs for the requests after a stream: the stream's longer limit does not delay their watchdog", async () => {
      await gateway.close();
      gateway = await startGateway({ keys: [{ key: ACME, org: 'acme' }], organizations: { acme: {} }, sql: { databases: { main: {} }, default: 'main', timeoutMs: 300, streamTimeoutMs: 60_000 } });
      const streamed = await sql({ query: 'SELECT 1 AS one', format: 'ndjson' });
      assert.equal(streamed.status, 200);
      const started = performance.now();
      const runaway = await sql({ query: 'WITH RECURSIVE forever(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM forever) SELECT count(*) FROM forever' });
      assert.equal(runaway.body.error_code, 'statement_timeout');
      assert.ok(performance.now() - started < 5_000, `stopped after ${(performance.now() - started).toFixed(0)} ms`);
    });

    it('answers a failure before the first row as a normal JSON error, and an ok statement as its line and end', async () => {
      const failed = await sql({ query: 'SELECT * FROM missing', format: 'ndjson' });
      assert.equal(failed.status, 400);
      assert.equal(failed.headers.get('content-type'), 'application/json');
      assert.equal(failed.body.error_code, 'no_such_table');
      const ok = await sql({ query: 'CREATE TABLE s(x)', format: 'ndjson' });
      assert.equal(ok.headers.get('content-type'), 'application/x-ndjson');
      assert.deepEqual(ok.text.trimEnd().split('\n').map((line: string) => JSON.parse(line)), [
        { type: 'ok', affected_rows: 0, context: { db: 'main' } },
        { type: 'end', row_count: 0, context: { db: 'main' } },
      ]);
    });

    it('ends the stream with an error line when a row fails mid-way, and without an end line', async () => {
      const { status, text } = await sql({ query: 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40000) SELECT CASE WHEN i < 30000 THEN i ELSE zeroblob(300000000) END FROM n', format: 'ndjson' });
      assert.equal(status, 200);
      const lines = (text as string).trimEnd().split('\n').map((line) => JSON.parse(line));
      assert.ok(lines.length > 1000, 'rows were streamed before the failure');
      const last = lines.at(-1);
      assert.equal(last.type, 'error');
      assert.equal(last.error_code, 'result_too_large');
      assert.ok(!lines.some((line) => line.type === 'end'));
    });
  });
});

/** The body of a raw HTTP/1.1 response with chunked transfer encoding. */
function bodyOf(raw: string): string {
  let rest = raw.slice(raw.indexOf('\r\n\r\n') + 4);
  let body = '';
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, lineEnd), 16);
    if (!size) return body;
    body += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
}

/** A request on a raw socket, so the test decides when the client reads. Resolves with the whole body text. */
function rawRequest(baseUrl: string, body: unknown): { socket: Socket; received: Promise<string> } {
  const url = new URL(baseUrl);
  const payload = JSON.stringify(body);
  const socket = connect(Number(url.port), url.hostname);
  socket.write(`POST /api/sql/query HTTP/1.1\r\nhost: ${url.host}\r\nauthorization: Bearer ${ACME}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(payload)}\r\nconnection: close\r\n\r\n${payload}`);
  const received = new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
  });
  return { socket, received };
}
