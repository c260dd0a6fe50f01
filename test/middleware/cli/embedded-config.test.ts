import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EMBEDDED_CONCURRENCY, embeddedConfig } from '../../../packages/middleware/src/cli/embedded-config.js';
import { startFakeOpenAI } from '../../fakes/index.js';
import { postJson, startGateway } from '../../support/gateway.js';

describe('embedded default config', () => {
  it(`limits the local organization to ${EMBEDDED_CONCURRENCY} requests in flight: the next one answers 429 rate_limited`, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-embedded-'));
    const openai = await startFakeOpenAI();
    const { config, devKey } = embeddedConfig(dataDir);
    const gateway = await startGateway({ ...config, providers: { openai: { kind: 'openai', baseUrl: openai.baseUrl, apiKey: 'sk-fake-openai' } } });
    try {
      openai.delay(1_000);
      const call = () => postJson(`${gateway.url}/v1/chat/completions`, { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${devKey}` });
      const held = Array.from({ length: EMBEDDED_CONCURRENCY }, call);
      while ((await gateway.gate.admin.usage('local')).inFlight < EMBEDDED_CONCURRENCY) await new Promise((resolve) => setTimeout(resolve, 10));
      const refused = await call();
      assert.equal(refused.status, 429);
      assert.equal(refused.body.error.code, 'rate_limited');
      assert.equal(refused.headers.get('retry-after'), '1');
      assert.deepEqual((await Promise.all(held)).map((response) => response.status), Array(EMBEDDED_CONCURRENCY).fill(200));
    } finally {
      await gateway.close();
      await openai.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the embedded default of tollgate serve', () => {
  it('grants its one organization its database, so the development key runs SQL and nothing warns', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-embedded-'));
    const notices: string[] = [];
    const { config, devKey } = embeddedConfig(join(dir, 'data'));
    assert.deepEqual(config.sql?.databases?.main?.access, { local: 'write' });
    const gateway = await startGateway(config, { baseDir: dir, logger: { info: (m) => notices.push(m), error: (m) => notices.push(m) } });
    try {
      const { status, body } = await postJson(`${gateway.url}/api/sql/query`, { query: 'CREATE TABLE t(x); INSERT INTO t VALUES (1); SELECT x FROM t' }, { authorization: `Bearer ${devKey}` });
      assert.equal(status, 200);
      assert.deepEqual(body.data, [[1]]);
      assert.deepEqual(notices, []);
    } finally {
      await gateway.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
