import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RedisServer } from '../../support/redis-server.js';
import { chatCompletion, sendJson, startScripted } from '../../support/scripted-provider.js';
import { TEST_KEY, postJson, startGateway, type RunningGateway } from '../../support/gateway.js';

/**
 * store/settlement-spool.ts: with `store.pendingFile`, a settlement that cannot reach Redis is appended there
 * ('pending') and, once Redis took it, marked 'done' by a second line. Nothing is ever removed while the process
 * runs: the file is compacted only at the next start. Every Redis blip (a failover, an AOF fsync stall past
 * policyTimeoutMs) adds two lines per request in flight, for good, and the next start reads the whole file into
 * memory (Journal.open) before it serves.
 */
describe('the Redis store\'s pending-settlements file across outages (growth)', function () {
  this.timeout(60_000);
  let dir: string;
  let redis: RedisServer;
  let upstream: Awaited<ReturnType<typeof startScripted>>;
  let gateway: RunningGateway;
  let settledAtStart = 0;
  const pendingFile = () => join(dir, 'pending-settlements.jsonl');

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-pending-'));
    redis = await RedisServer.start({ persistent: false });
    // Answers after 400 ms: requests are admitted while Redis answers, and settle while it does not.
    upstream = await startScripted((_req, res) => void setTimeout(() => sendJson(res, 200, chatCompletion('hello', { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 })), 400));
    gateway = await startGateway({
      defaultCatalog: false,
      keys: [{ key: TEST_KEY, org: 'acme' }],
      organizations: { acme: { wallet: 100 } },
      providers: { up: { kind: 'openai', baseUrl: upstream.baseUrl, apiKey: 'sk-up', maxRetries: 0 } },
      models: { gpt: { routes: [{ provider: 'up', model: 'gpt-4o' }], price: { input: 1, output: 1 } } },
      store: { kind: 'redis', url: redis.url, pendingFile: pendingFile(), ledger: false },
      policyTimeoutMs: 300,
    }, { logger: { info() {}, error() {} } });
    await gateway.gate.ready();
    // On a loaded machine the store's first answers (its scripts loaded, the key's id) can take longer than the
    // 300 ms policyTimeoutMs: one request through before the outages, so each outage starts from a store that answers.
    const deadline = Date.now() + 15_000;
    while ((await chat()).status !== 200) {
      assert.ok(Date.now() < deadline, 'the gateway did not answer a request before the outages');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    settledAtStart = (await gateway.gate.admin.usage('acme')).requests;
  });
  after(async () => {
    redis.resume();
    await gateway.close();
    await upstream.close();
    await redis.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const chat = () => postJson(`${gateway.url}/v1/chat/completions`, { model: 'gpt', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 16 }, { authorization: `Bearer ${TEST_KEY}` });

  /** 20 requests admitted, then Redis hangs until they have answered, then it is back and takes their settlements. */
  async function outage(settledBefore: number): Promise<void> {
    const answers = Array.from({ length: 20 }, () => chat());
    await new Promise((resolve) => setTimeout(resolve, 200));
    redis.pause();
    const statuses = (await Promise.all(answers)).map((answer) => answer.status);
    redis.resume();
    assert.deepEqual(statuses, Array(20).fill(200));
    const deadline = Date.now() + 15_000;
    while ((await gateway.gate.admin.usage('acme').catch(() => ({ requests: -1 }))).requests < settledBefore + 20) {
      assert.ok(Date.now() < deadline, 'the settlements did not reach Redis');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  it('holds nothing once every settlement reached Redis, however many outages the process lived through', async () => {
    const sizes: number[] = [];
    for (let round = 0; round < 3; round++) {
      await outage(settledAtStart + round * 20);
      // Settlements whose reply was lost in the hang are sent again (every second; Redis answers "already settled") and
      // then marked done: after 3 s nothing waits.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      sizes.push(statSync(pendingFile()).size);
    }
    assert.deepEqual(sizes, [0, 0, 0], `bytes in ${pendingFile()} after each outage, with nothing waiting: ${sizes.join(', ')}`);
  });
});
