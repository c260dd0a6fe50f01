import assert from 'node:assert/strict';
import { RedisServer } from '../../support/redis-server.js';
import { chat, keyOf, startPolicyStack } from './policy-fixture.js';

/** Two Tollgate instances sharing one real redis-server, as behind a load balancer. */
describe('several instances sharing Redis (DESIGN "Scale")', function () {
  let redis: RedisServer;
  let a: Awaited<ReturnType<typeof startPolicyStack>>;
  let b: Awaited<ReturnType<typeof startPolicyStack>>;

  const startPair = async (organizations: Parameters<typeof startPolicyStack>[0]) => {
    const store = { kind: 'redis' as const, url: redis.url, prefix: `t${Math.random().toString(36).slice(2)}:` };
    a = await startPolicyStack(organizations, { store });
    b = await startPolicyStack(organizations, { store });
  };

  before(async () => {
    redis = await RedisServer.start();
  });
  after(() => redis.close());
  afterEach(async () => {
    await a?.close();
    await b?.close();
  });

  it('shares one requests-per-minute limit', async () => {
    await startPair({ acme: { wallet: 10, limits: { rpm: 3 } } });
    assert.equal((await chat(a.gateway.url, 'acme')).status, 200);
    assert.equal((await chat(b.gateway.url, 'acme')).status, 200);
    assert.equal((await chat(a.gateway.url, 'acme')).status, 200);
    const limited = await chat(b.gateway.url, 'acme');
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('x-service-reason'), 'rate_limited');
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
  });

  it('shares one concurrency limit, and the slot returns when the request ends', async () => {
    await startPair({ acme: { wallet: 10, limits: { concurrency: 1 } } });
    a.openai.delay(300);
    const slow = chat(a.gateway.url, 'acme');
    while (a.openai.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal((await chat(b.gateway.url, 'acme')).status, 429);
    assert.equal((await slow).status, 200);
    assert.equal((await b.gateway.gate.admin.usage('acme')).inFlight, 0);
    assert.equal((await chat(b.gateway.url, 'acme')).status, 200);
  });

  it('shares one wallet: spending on either instance and a top-up on one are seen by both', async () => {
    await startPair({ acme: { wallet: 0.0002 } });
    // Each call reserves its worst case (a 9-token prompt estimate + 4 output tokens = 63 µ$) and costs 48.
    assert.equal((await chat(a.gateway.url, 'acme', { max_tokens: 4 })).status, 200);
    assert.equal((await chat(b.gateway.url, 'acme', { max_tokens: 4 })).status, 200);
    const usage = await a.gateway.gate.admin.usage('acme');
    assert.equal(usage.requests, 2);
    assert.equal(Math.round(usage.wallet * 1e6), 200 - 2 * 48);
    assert.equal((await chat(b.gateway.url, 'acme', { max_tokens: 4 })).status, 200);
    // 56 micro-dollars left: less than a call's worst case, so refused on either instance.
    assert.equal((await chat(a.gateway.url, 'acme', { max_tokens: 4 })).status, 402);
    assert.equal((await chat(b.gateway.url, 'acme', { max_tokens: 4 })).status, 402);
    await b.gateway.gate.admin.topUp('acme', 1);
    assert.equal((await chat(a.gateway.url, 'acme')).status, 200);
  });

  it('accepts a key created on one instance at the other, and refuses it there once revoked', async () => {
    await startPair({ acme: { wallet: 10 } });
    const { key } = await a.gateway.gate.admin.createKey('acme', ['models']);
    const call = (url: string) => fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal((await call(b.gateway.url)).status, 200);
    assert.ok(await a.gateway.gate.admin.revokeKey(key));
    const viaB = await fetch(`${b.gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }] }) });
    assert.equal(viaB.status, 401);
  });

  it('refuses a key on the SQL endpoint of the other instance as soon as it is revoked', async () => {
    await startPair({ acme: { wallet: 10 } });
    const sql = (url: string) => fetch(`${url}/api/sql/query`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${keyOf('acme')}` }, body: JSON.stringify({ query: 'SELECT 1 AS one' }) });
    assert.equal((await sql(b.gateway.url)).status, 200);
    assert.ok(await a.gateway.gate.admin.revokeKey(keyOf('acme')));
    let status = 200;
    for (let i = 0; i < 100 && status === 200; i++) {
      status = (await sql(b.gateway.url)).status;
      if (status === 200) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    assert.equal(status, 401);
  });

  it('answers 503 policy_unavailable while Redis is down, and serves again once it is back', async () => {
    await startPair({ acme: { wallet: 10 } });
    assert.equal((await chat(a.gateway.url, 'acme')).status, 200);
    await redis.stop();
    const started = Date.now();
    const refused = await chat(a.gateway.url, 'acme');
    assert.equal(refused.status, 503);
    assert.equal(refused.body.error.code, 'policy_unavailable');
    assert.equal(refused.headers.get('x-service-reason'), 'policy_unavailable');
    assert.ok(Date.now() - started < 2_000, 'answered within the policy deadline');
    assert.equal(a.openai.requests.length, 1, 'never ran unmetered');
    await redis.restart();
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await chat(a.gateway.url, 'acme')).status;
    }
    assert.equal(status, 200);
  });

  it('keeps the wallet exact in a storm of 200 parallel requests across both instances', async () => {
    // 50 calls' worth of credit; every call costs exactly 48 micro-dollars.
    await startPair({ acme: { wallet: 50 * 0.000048 } });
    // max_tokens 4: each call reserves 63 micro-dollars (a 9-token prompt estimate + 4 output tokens) and costs 48.
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => chat((i % 2 ? a : b).gateway.url, 'acme', { max_tokens: 4 })));
    const served = results.filter((r) => r.status === 200).length;
    assert.ok(results.every((r) => r.status === 200 || r.status === 402));
    const usage = await a.gateway.gate.admin.usage('acme');
    assert.equal(usage.requests, served);
    assert.equal(Math.round(usage.costUsd * 1e6), served * 48, 'ledger total equals the balance change');
    assert.equal(Math.round((50 * 0.000048 - usage.wallet) * 1e6), served * 48);
    // However the settlements interleave, the wallet's worth of worst cases is served and it never goes below zero.
    assert.ok(served >= Math.floor(2400 / 63), `served ${served}`);
    assert.ok(usage.wallet >= 0, `wallet ${usage.wallet}`);
    assert.equal(usage.inFlight, 0);
  });

  it(`refuses every request of a key whose organization has no credit, with ${keyOf('x')} style keys untouched`, async () => {
    await startPair({ broke: { wallet: 0 }, rich: { wallet: 1 } });
    assert.equal((await chat(a.gateway.url, 'broke')).status, 402);
    assert.equal((await chat(b.gateway.url, 'rich')).status, 200);
  });
});
