import assert from 'node:assert/strict';
import { postJson, startGateway, type RunningGateway } from '../../support/gateway.js';

const ACME = 'tg-acme-writer-0001-0123456789abcdef';
const COUNT_UP_TO = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?) SELECT count(*) FROM c';

describe('a streamed answer whose final answer was held behind a mispredicted runaway', () => {
  let gateway: RunningGateway;
  const sql = (body: unknown) => postJson(`${gateway.url}/api/sql/query`, body, { authorization: `Bearer ${ACME}` });

  beforeEach(async () => {
    gateway = await startGateway({ keys: [{ key: ACME, org: 'acme' }], organizations: { acme: {} }, sql: { databases: { main: {} }, default: 'main', timeoutMs: 800, streamTimeoutMs: 800 } });
  });
  afterEach(async () => {
    await gateway.close();
  });

  it('sends each streamed row once: the stream is not replayed when a later request is stopped', async () => {
    // A kept read that ran quickly: predicted quick, so answers before it may be held behind it.
    for (let i = 0; i < 5; i++) assert.equal((await sql({ query: COUNT_UP_TO, params: [1] })).status, 200);
    // Something slow first, so the stream and the runaway reach the worker in one batch, right behind each other.
    const slow = sql({ query: `/* slow */ ${COUNT_UP_TO}`, params: [1_000_000] });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const streamed = sql({ query: "SELECT 'only-row' AS v", format: 'ndjson' });
    const runaway = sql({ query: COUNT_UP_TO, params: [1e15] });
    const [, stream, stopped] = await Promise.all([slow, streamed, runaway]);
    assert.equal(stopped.body.error_code, 'statement_timeout');
    const lines = (stream.text as string).trimEnd().split('\n').map((line) => JSON.parse(line));
    assert.deepEqual(lines, [
      { type: 'table', column_names: ['v'], column_types: [{ declared: null }] },
      ['only-row'],
      { type: 'end', row_count: 1, column_types: [{ declared: null, storage: 'text' }], context: { db: 'main' } },
    ]);
  });
});
