import assert from 'node:assert/strict';
import { chat, keyOf, startPolicyStack } from './policy-fixture.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { DelayProxy } from '../../support/delay-proxy.js';
import { RedisServer } from '../../support/redis-server.js';

type Stack = Awaited<ReturnType<typeof startPolicyStack>>;

async function until200(url: string, org: string): Promise<number> {
  let status = 0;
  for (let i = 0; i < 50 && status !== 200; i++) {
    status = (await chat(url, org)).status;
    if (status !== 200) await sleep(100);
  }
  return status;
}

describe('Redis that lost its data (restart without persistence)', function () {
  this.timeout(30_000);
  let redis: RedisServer;
  let proxy: DelayProxy | undefined;
  const stacks: Stack[] = [];
  beforeEach(async () => {
    redis = await RedisServer.start({ persistent: false });
  });
  afterEach(async () => {
    for (const stack of stacks.splice(0)) await stack.close();
    await proxy?.close();
    proxy = undefined;
    await redis.close();
  });

  it('a configured key revoked on an instance started after the data loss is refused on the instance that ran before it', async () => {
    const store = { kind: 'redis' as const, url: redis.url, prefix: 'loss:' };
    const a = await startPolicyStack({ acme: { wallet: 10 } }, { store });
    stacks.push(a);
    assert.equal((await chat(a.gateway.url, 'acme')).status, 200);
    await redis.stop();
    await redis.restart(); // everything Redis held is gone
    assert.equal(await until200(a.gateway.url, 'acme'), 200, 'instance a serves again once Redis is back');
    const b = await startPolicyStack({ acme: { wallet: 10 } }, { store });
    stacks.push(b);
    assert.equal((await chat(b.gateway.url, 'acme')).status, 200);
    assert.ok(await b.gateway.gate.admin.revokeKey(keyOf('acme')));
    assert.equal((await chat(b.gateway.url, 'acme')).status, 401, 'refused where it was revoked');
    let status = 200;
    for (let i = 0; i < 20 && status === 200; i++) {
      status = (await chat(a.gateway.url, 'acme')).status;
      if (status === 200) await sleep(50);
    }
    assert.equal(status, 401, 'the revoked key is refused on the other instance too');
  });
});

describe('a slow Redis during an admission that needs several round trips', function () {
  this.timeout(30_000);
  let redis: RedisServer;
  let proxy: DelayProxy;
  let a: Stack | undefined;
  before(async () => {
    redis = await RedisServer.start({ persistent: false });
    proxy = await DelayProxy.start(redis.port);
  });
  after(async () => {
    await a?.close();
    await proxy.close();
    await redis.close();
  });

  it('a request refused with 503 policy_unavailable holds no concurrency slot afterwards', async () => {
    a = await startPolicyStack({ acme: { wallet: 10, limits: { concurrency: 1 } } }, { store: { kind: 'redis', url: proxy.url, prefix: 'slow:' } });
    assert.equal((await chat(a.gateway.url, 'acme')).status, 200);
    await redis.stop();
    await redis.restart(); // data lost: the next admission re-initialises (several round trips)
    // Wait until the instance is connected again (its next admission would find the data gone).
    await sleep(1_500);
    proxy.delayMs = 120; // each reply well within commandTimeout (300 ms), the whole admission not
    const refused = await chat(a.gateway.url, 'acme');
    assert.equal(refused.status, 503);
    assert.equal(refused.body.error.code, 'policy_unavailable');
    proxy.delayMs = 0;
    await sleep(1_500);
    const next = await chat(a.gateway.url, 'acme');
    assert.equal(next.status, 200, `the refused request holds no slot: got ${next.status} ${next.text}`);
    assert.equal((await a.gateway.gate.admin.usage('acme')).inFlight, 0, 'nothing in flight');
  });
});
