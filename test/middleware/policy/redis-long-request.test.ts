import assert from 'node:assert/strict';
import { RedisServer } from '../../support/redis-server.js';
import { chat, startPolicyStack, TestClock } from './policy-fixture.js';

type Stack = Awaited<ReturnType<typeof startPolicyStack>>;

/**
 * relay.attemptDeadlineMs (default 30 minutes) lets a legitimate request run up to 30 minutes; a request
 * still running holds its concurrency slot and its reservation, on every instance sharing Redis.
 */
describe('a request that runs longer than 15 minutes (within relay.attemptDeadlineMs) on two instances', function () {
  this.timeout(30_000);
  let redis: RedisServer;
  let a: Stack | undefined;
  let b: Stack | undefined;
  before(async () => {
    redis = await RedisServer.start();
  });
  after(() => redis.close());
  afterEach(async () => {
    await a?.close();
    await b?.close();
  });

  const startPair = async (organizations: Parameters<typeof startPolicyStack>[0], prefix: string) => {
    const clock = new TestClock();
    const store = { kind: 'redis' as const, url: redis.url, prefix };
    a = await startPolicyStack(organizations, { store, clock });
    b = await startPolicyStack(organizations, { store, clock });
    return clock;
  };

  it('keeps its concurrency slot while it runs', async () => {
    const clock = await startPair({ acme: { wallet: 10, limits: { concurrency: 1 } } }, 'long1:');
    a!.openai.delay(1_500);
    const running = chat(a!.gateway.url, 'acme');
    while (a!.openai.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    clock.advance(16 * 60_000); // 16 minutes into a request allowed to run 30
    const second = await chat(b!.gateway.url, 'acme');
    assert.equal(second.status, 429, 'the one slot is still taken');
    assert.equal((await running).status, 200);
  });

  it('keeps its reservation while it runs: the wallet never ends below zero', async () => {
    // One call's worst case: a 9-token prompt estimate + 4 output tokens = 63 micro-dollars; it costs 48.
    const clock = await startPair({ acme: { wallet: 0.000063 } }, 'long2:');
    a!.openai.delay(1_500);
    const running = chat(a!.gateway.url, 'acme', { max_tokens: 4 });
    while (a!.openai.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    clock.advance(16 * 60_000);
    const second = await chat(b!.gateway.url, 'acme', { max_tokens: 4 });
    assert.equal((await running).status, 200);
    assert.equal(second.status, 402, 'the wallet is reserved by the request still running');
    assert.ok((await a!.gateway.gate.admin.usage('acme')).wallet >= 0);
  });
});
