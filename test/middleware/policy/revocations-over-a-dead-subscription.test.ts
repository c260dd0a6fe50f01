import assert from 'node:assert/strict';
import { DelayProxy } from '../../support/delay-proxy.js';
import { RedisServer } from '../../support/redis-server.js';
import { waitUntil } from '../../support/stalled-client.js';
import { keyOf, startPolicyStack } from './policy-fixture.js';

/** Longer than any test: what the proxy holds while this is its delay never arrives (below 2^31 ms, a valid timer). */
const FOREVER_MS = 2_000_000_000;

/**
 * Revocations reach every instance's KeyRing over pub/sub, and the SQL endpoint checks only the KeyRing. A subscription
 * whose connection died without a FIN (a NAT or firewall that dropped its state, a peer gone) was never noticed: the
 * subscriber sends nothing, so nothing timed out, and TCP keepalive waits hours. Every later revocation was missed, and
 * the revoked key kept working on that instance's SQL endpoint until the process restarted.
 */
describe('revocations when an instance\'s subscription died silently', function () {
  this.timeout(60_000);
  let redis: RedisServer;
  let proxy: DelayProxy;
  const stacks: { close(): Promise<void> }[] = [];
  before(async () => {
    redis = await RedisServer.start();
    proxy = await DelayProxy.start(redis.port);
  });
  after(async () => {
    await proxy.close();
    await redis.close();
  });
  afterEach(async () => {
    for (const stack of stacks.splice(0)) await stack.close();
  });

  it('notices the dead subscription, catches up, and refuses the key revoked meanwhile on the SQL endpoint within seconds', async () => {
    const prefix = `d${Math.random().toString(36).slice(2)}:`;
    const organizations = { acme: { wallet: 10 } };
    const cutOff = await startPolicyStack(organizations, { store: { kind: 'redis', url: proxy.url, prefix, ledger: false } });
    stacks.push(cutOff);
    const other = await startPolicyStack(organizations, { store: { kind: 'redis', url: redis.url, prefix, ledger: false } });
    stacks.push(other);
    const sql = () => fetch(`${cutOff.gateway.url}/api/sql/query`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${keyOf('acme')}` }, body: JSON.stringify({ query: 'SELECT 1 AS one' }) });
    assert.equal((await sql()).status, 200);
    // From now on, what Redis sends on the connections open through the proxy never arrives: the revocation's
    // message is the first thing the subscription receives, and it is lost with its connection.
    proxy.delayMs = FOREVER_MS;
    assert.ok(await other.gateway.gate.admin.revokeKey(keyOf('acme')));
    await new Promise((resolve) => setTimeout(resolve, 200));
    proxy.delayMs = 0; // new connections through the proxy work again
    await waitUntil('the revoked key is refused on the cut-off instance\'s SQL endpoint', async () => (await sql()).status === 401, 10_000);
  });
});
