import assert from 'node:assert/strict';
import OpenAI from 'openai';
import type { ConfigInput } from '@tollgate/middleware';
import { startFakeOpenAI } from '../../fakes/index.js';
import { startGateway, type RunningGateway } from '../../support/gateway.js';
import { RedisServer } from '../../support/redis-server.js';
import { TestClock } from './policy-fixture.js';

const CAPPED = 'tg-key-capped-0001-0123456789abcdef';
const LIMITED = 'tg-key-limited-001-0123456789abcdef';
const SIBLING = 'tg-key-sibling-001-0123456789abcdef';

/** README "Per-key limits and budgets": a key's own limits and budget, checked after its organization's. */
let redis: RedisServer;
before(async () => {
  redis = await RedisServer.start();
});
after(() => redis.close());

const stores: { name: string; store: () => ConfigInput['store'] }[] = [
  { name: 'memory store', store: () => ({ kind: 'memory' }) },
  { name: 'Redis store', store: () => ({ kind: 'redis', url: redis.url, prefix: `k${Math.random().toString(36).slice(2)}:`, ledger: false }) },
];

for (const { name, store } of stores)
describe(`per-key limits and budgets (${name})`, () => {
  let gateway: RunningGateway;
  let openai: Awaited<ReturnType<typeof startFakeOpenAI>>;
  let clock: TestClock;

  beforeEach(async () => {
    clock = new TestClock();
    openai = await startFakeOpenAI();
    const config: ConfigInput = {
      defaultCatalog: false,
      keys: [
        { key: CAPPED, org: 'acme', id: 'capped', budget: { usd: 0.0001, period: 'day' } },
        { key: LIMITED, org: 'acme', id: 'limited', limits: { rpm: 1 } },
        { key: SIBLING, org: 'acme', id: 'sibling' },
      ],
      organizations: { acme: { wallet: 10 } },
      providers: { openai: { kind: 'openai', baseUrl: openai.baseUrl, apiKey: 'sk-fake-openai' } },
      models: { gpt: { routes: [{ provider: 'openai', model: 'gpt-4o' }], price: { input: 2.5, output: 10 } } },
      store: store(),
    };
    gateway = await startGateway(config, { clock });
  });
  afterEach(async () => {
    await gateway.close();
    await openai.close();
  });

  // Each call reserves 63 micro-dollars (a 9-token prompt estimate + 4 output tokens) and costs 48.
  const call = (key: string) =>
    fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: 'gpt', max_tokens: 4, messages: [{ role: 'user', content: 'one two three' }] }),
    }).then(async (response) => ({ status: response.status, headers: response.headers, body: (await response.json()) as { error?: { code?: string; message?: string } } }));

  it("stops a key at its budget with 402 wallet_empty, not its siblings, and renews it the next period", async () => {
    assert.equal((await call(CAPPED)).status, 200);
    const stopped = await call(CAPPED);
    assert.equal(stopped.status, 402);
    assert.equal(stopped.body.error?.code, 'wallet_empty');
    assert.equal(stopped.headers.get('x-service-reason'), 'wallet_empty');
    assert.equal(stopped.headers.get('x-service-recovery-url'), '/console/billing');
    assert.match(stopped.body.error?.message ?? '', /API key's daily budget/);
    assert.equal((await call(SIBLING)).status, 200);
    const usage = await gateway.gate.admin.usage('acme');
    assert.deepEqual(usage.keys?.capped, { requests: 1, inputTokens: 3, outputTokens: 4, costUsd: 0.000048, budgetRemaining: 0.000052, budgetResetAt: '2026-11-23T00:00:00.000Z', inFlight: 0 });
    assert.equal(usage.keys?.sibling?.requests, 1);
    assert.equal(usage.keys?.sibling?.budgetRemaining, null);
    assert.equal(usage.requests, 2);
    clock.time = Date.parse('2026-11-23T00:00:00Z');
    assert.equal((await call(CAPPED)).status, 200);
  });

  it("limits a key's requests per minute with the organization's 429 and Retry-After, not its siblings", async () => {
    assert.equal((await call(LIMITED)).status, 200);
    const limited = await call(LIMITED);
    assert.equal(limited.status, 429);
    assert.equal(limited.body.error?.code, 'rate_limited');
    assert.equal(limited.headers.get('x-service-reason'), 'rate_limited');
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    assert.equal((await call(SIBLING)).status, 200);
    clock.advance(Number(limited.headers.get('retry-after')) * 1000);
    assert.equal((await call(LIMITED)).status, 200);
  });

  it('surfaces a spent key budget through the official openai SDK as a 402', async () => {
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: CAPPED, maxRetries: 0 });
    await client.chat.completions.create({ model: 'gpt', max_tokens: 4, messages: [{ role: 'user', content: 'one two three' }] });
    const error = await client.chat.completions.create({ model: 'gpt', max_tokens: 4, messages: [{ role: 'user', content: 'one two three' }] }).catch((e: unknown) => e);
    assert.ok(error instanceof OpenAI.APIError);
    assert.equal(error.status, 402);
    assert.equal(error.code, 'wallet_empty');
  });
});

describe('per-key budgets across two instances sharing Redis', () => {
  it('stops a key on one instance once it spent its budget on the other', async () => {
    const openai = await startFakeOpenAI();
    const config: ConfigInput = {
      defaultCatalog: false,
      keys: [{ key: CAPPED, org: 'acme', id: 'capped', budget: { usd: 0.0001, period: 'month' } }],
      organizations: { acme: { wallet: 10 } },
      providers: { openai: { kind: 'openai', baseUrl: openai.baseUrl, apiKey: 'sk-fake-openai' } },
      models: { gpt: { routes: [{ provider: 'openai', model: 'gpt-4o' }], price: { input: 2.5, output: 10 } } },
      store: { kind: 'redis', url: redis.url, prefix: `s${Math.random().toString(36).slice(2)}:`, ledger: false },
    };
    const a = await startGateway(config);
    const b = await startGateway(config);
    try {
      const call = (url: string) => fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${CAPPED}` }, body: JSON.stringify({ model: 'gpt', max_tokens: 4, messages: [{ role: 'user', content: 'one two three' }] }) });
      assert.equal((await call(a.url)).status, 200);
      assert.equal((await call(b.url)).status, 402);
      const usage = await b.gate.admin.usage('acme');
      assert.equal(usage.keys?.capped?.budgetRemaining, 0.000052);
    } finally {
      await a.close();
      await b.close();
      await openai.close();
    }
  });
});
