import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { DelayProxy } from '../../support/delay-proxy.js';
import { RedisServer } from '../../support/redis-server.js';
import { postJson } from '../../support/gateway.js';
import { waitUntil } from '../../support/stalled-client.js';
import { startStack, TEST_KEY } from '../gateway/gateway-fixture.js';

/** Bytes of live heap after full collections. */
function liveHeap(): number {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/**
 * A hung Redis (SIGSTOP, a frozen VM: the socket stays open, nothing answers) keeps its connection up, so the client
 * never reconnects: every command written to it, and answered 503 at its deadline, stayed in the client's queue of
 * commands awaiting a reply, and once the kernel's buffers were full, in the socket's write buffer — an admission and a
 * release per refused request, plus every retry of the releases, for as long as the stall lasted.
 */
describe('a hung Redis under traffic', function () {
  this.timeout(120_000);

  it('answers every request 503 policy_unavailable and holds no memory per refused request, then serves again once Redis runs', async () => {
    const redis = await RedisServer.start();
    const stack = await startStack({
      store: { kind: 'redis', url: redis.url, ledger: false },
      organizations: { acme: { wallet: 100, limits: { concurrency: 50 } } },
      policyTimeoutMs: 200,
    });
    const chat = () => postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'gpt', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 8 }, { authorization: `Bearer ${TEST_KEY}` });
    const refuseRounds = async (rounds: number) => {
      const statuses = new Set<number>();
      const reasons = new Set<string | null>();
      for (let round = 0; round < rounds; round++) {
        for (const answer of await Promise.all(Array.from({ length: 100 }, chat))) {
          statuses.add(answer.status);
          reasons.add(answer.headers.get('x-service-reason'));
        }
      }
      return { statuses: [...statuses], reasons: [...reasons] };
    };
    try {
      assert.equal((await chat()).status, 200);
      redis.pause();
      await refuseRounds(5); // the stall is noticed; what the first requests leave is the baseline
      const before = liveHeap();
      const refused = await refuseRounds(40);
      const grown = liveHeap() - before;
      assert.deepEqual(refused, { statuses: [503], reasons: ['policy_unavailable'] });
      // Before: ~5 KB per refused request (20 MiB for these 4,000), growing for as long as Redis hung.
      assert.ok(grown < 8 * 1024 * 1024, `live heap grew ${(grown / 1024 / 1024).toFixed(1)} MiB over 4,000 refused requests`);
      redis.resume();
      await waitUntil('the gateway serves again', async () => (await chat()).status === 200, 15_000);
      await waitUntil('the refused requests hold no concurrency slot', async () => (await stack.gateway.gate.admin.usage('acme')).inFlight === 0, 15_000);
    } finally {
      redis.resume();
      await stack.close();
      await redis.close();
    }
  });

  it('replaces a connection that died without a FIN: 503 policy_unavailable while it is dead, then served on a new one', async () => {
    const redis = await RedisServer.start();
    const proxy = await DelayProxy.start(redis.port);
    const stack = await startStack({ store: { kind: 'redis', url: proxy.url, ledger: false }, policyTimeoutMs: 300 });
    const chat = () => postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'gpt', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 8 }, { authorization: `Bearer ${TEST_KEY}` });
    try {
      assert.equal((await chat()).status, 200);
      proxy.delayMs = 2_000_000_000; // what Redis answers on the open connections never arrives (a NAT dropped their state)
      const refused = await chat();
      assert.deepEqual([refused.status, refused.headers.get('x-service-reason')], [503, 'policy_unavailable']);
      proxy.delayMs = 0; // a new connection works; before, the dead one was kept and every request answered 503
      await waitUntil('the gateway serves again', async () => (await chat()).status === 200, 10_000);
    } finally {
      await stack.close();
      await proxy.close();
      await redis.close();
    }
  });
});
