import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { RedisServer } from '../../support/redis-server.js';
import { postJson } from '../../support/gateway.js';
import { waitUntil } from '../../support/stalled-client.js';
import { startStack, TEST_KEY } from '../gateway/gateway-fixture.js';

/**
 * A Redis that answers but refuses writes when an instance starts — out of memory under `noeviction`, a replica
 * (READONLY: the URL still names the old primary after a failover) — failed the store's start for good: every
 * request answered 503 policy_unavailable "retry in a few seconds" until the process was restarted, long after
 * Redis took writes again.
 */
describe('an instance started while Redis refuses writes', function () {
  this.timeout(60_000);
  const servers: RedisServer[] = [];
  const clients: Redis[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) client.disconnect();
    for (const server of servers.splice(0)) await server.close();
  });
  const redisServer = async () => {
    const server = await RedisServer.start();
    servers.push(server);
    const client = new Redis(server.url);
    clients.push(client);
    return { server, client };
  };

  async function servesOnceRedisTakesWrites(url: string, takeWrites: () => Promise<void>) {
    const stack = await startStack({ store: { kind: 'redis', url, ledger: false }, organizations: { acme: { wallet: 100 } } });
    const chat = () => postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'gpt', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 8 }, { authorization: `Bearer ${TEST_KEY}` });
    try {
      const refused = await chat();
      assert.deepEqual([refused.status, refused.headers.get('x-service-reason')], [503, 'policy_unavailable']);
      await takeWrites();
      await waitUntil('the instance serves again', async () => (await chat()).status === 200, 10_000);
      const usage = await stack.gateway.gate.admin.usage('acme');
      assert.deepEqual([usage.requests, usage.inFlight], [1, 0], 'the one request served is counted, and holds no slot');
    } finally {
      await stack.close();
    }
  }

  it('out of memory (maxmemory with noeviction): answers 503 policy_unavailable, and serves once Redis has room again', async () => {
    const { server, client } = await redisServer();
    await client.config('SET', 'maxmemory-policy', 'noeviction');
    await client.config('SET', 'maxmemory', '1');
    await servesOnceRedisTakesWrites(server.url, async () => {
      await client.config('SET', 'maxmemory', '0');
    });
  });

  it('a replica (READONLY): answers 503 policy_unavailable, and serves once it is promoted', async () => {
    const primary = await redisServer();
    const replica = await redisServer();
    // An instance ran against the primary before: its data (the key-id secret, the balances) is on the replica too.
    const earlier = await startStack({ store: { kind: 'redis', url: primary.server.url, ledger: false }, organizations: { acme: { wallet: 100 } } });
    await earlier.close();
    await replica.client.replicaof('127.0.0.1', primary.server.port);
    await waitUntil('the replica is in sync', async () => /master_link_status:up/.test(await replica.client.info('replication')), 10_000);
    await servesOnceRedisTakesWrites(replica.server.url, async () => {
      await replica.client.replicaof('NO', 'ONE');
    });
  });
});
