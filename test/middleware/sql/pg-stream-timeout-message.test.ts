import assert from 'node:assert/strict';
import { postJson, startGateway, type RunningGateway } from '../../support/gateway.js';
import { PostgresServer } from '../../support/postgres-server.js';

/**
 * A stream's limit is sql.streamTimeoutMs (PostgreSQL gets it as SET LOCAL statement_timeout), but PostgreSQL's
 * 57014 is rendered with sql.timeoutMs: the client is told the wrong limit and the wrong setting to raise.
 */
describe('a PostgreSQL NDJSON stream stopped by sql.streamTimeoutMs', () => {
  let server: PostgresServer;
  let gateway: RunningGateway | undefined;

  before(async function () {
    this.timeout(60_000);
    server = await PostgresServer.start();
  });
  after(async () => {
    await server?.close();
  });
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
  });

  it('answers statement_timeout naming sql.streamTimeoutMs and its value, as the sql.js kind does', async () => {
    gateway = await startGateway({ sql: { auth: false, databases: { main: { kind: 'postgres', url: server.url } }, timeoutMs: 4_000, streamTimeoutMs: 1_000 } });
    const started = performance.now();
    const { status, body } = await postJson(`${gateway.url}/api/sql/query`, { query: 'SELECT pg_sleep(3) AS s', format: 'ndjson' });
    const tookMs = performance.now() - started;
    assert.equal(status, 400);
    assert.equal(body.error_code, 'statement_timeout');
    assert.ok(tookMs < 2_500, `stopped after ${Math.round(tookMs)} ms: the stream's own limit applied`);
    // What the sql.js kind says for the same stop: "The statement ran longer than 1000 ms (sql.streamTimeoutMs) …"
    assert.match(body.error_message, /1000 ms \(sql\.streamTimeoutMs\)/, `told: ${body.error_message}`);
  });
});
