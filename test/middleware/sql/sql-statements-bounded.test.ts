import assert from 'node:assert/strict';
import { postJson, startGateway, type RunningGateway } from '../../support/gateway.js';

const ACME = 'tg-acme-sql-key-0001-0123456789abcdef';
const BETA = 'tg-beta-sql-key-0001-0123456789abcdef';
const RUNAWAY = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c';

/**
 * A database runs its statements one after another, so every statement queued ahead of another tenant's is time
 * that tenant waits: one key sending hundreds of long statements at once held the database (and the queue's
 * memory) for all. An organization's SQL requests in flight are held to its `limits.concurrency`.
 */
describe("an organization's SQL requests in flight are held to its concurrency limit", function () {
  this.timeout(60_000);
  let gateway: RunningGateway;
  const sql = (key: string, query: string, signal?: AbortSignal) => postJson(`${gateway.url}/api/sql/query`, { query }, { authorization: `Bearer ${key}` }).catch((error: Error) => error);

  beforeEach(async () => {
    gateway = await startGateway({
      keys: [
        { key: ACME, org: 'acme', scopes: ['sql'] },
        { key: BETA, org: 'beta', scopes: ['sql'] },
      ],
      organizations: { acme: { limits: { concurrency: 2 } }, beta: { limits: { concurrency: 2 } } },
      sql: { databases: { main: {} }, default: 'main', timeoutMs: 3_000 },
    });
  });
  afterEach(async () => {
    await gateway.close();
  });

  it('a third statement while two are in flight answers 429 rate_limited with Retry-After at once; the two run to their own answers', async () => {
    const running = [sql(ACME, RUNAWAY), sql(ACME, RUNAWAY)];
    // Both have reached the database once a statement of another organization is answered after them.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = Date.now();
    const third = await sql(ACME, 'SELECT 1');
    assert.ok(!(third instanceof Error));
    assert.equal(third.status, 429, JSON.stringify(third.body));
    assert.equal(third.headers.get('retry-after'), '1');
    assert.equal(third.body.error_code, 'rate_limited');
    assert.match(third.body.error_message, /SQL requests in flight/);
    assert.ok(Date.now() - started < 2_000, `answered after ${Date.now() - started} ms: it waited behind the runaways`);
    const outcomes = await Promise.all(running);
    assert.deepEqual(outcomes.map((o) => (o instanceof Error ? o.message : o.body.error_code)), ['statement_timeout', 'statement_timeout']);
    // Their slots are back.
    const after = await sql(ACME, 'SELECT 1 AS one');
    assert.ok(!(after instanceof Error));
    assert.deepEqual(after.body.data, [[1]]);
  });

  it("another organization's statement is not refused by it", async () => {
    const running = [sql(ACME, RUNAWAY), sql(ACME, RUNAWAY)];
    await new Promise((resolve) => setTimeout(resolve, 300));
    const other = await sql(BETA, 'SELECT 2 AS two');
    assert.ok(!(other instanceof Error));
    assert.equal(other.status, 200);
    assert.deepEqual(other.body.data, [[2]]);
    await Promise.all(running);
  });
});
