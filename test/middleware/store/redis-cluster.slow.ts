import assert from 'node:assert/strict';
import { Cluster } from 'ioredis';
import { readLedger } from '../../../packages/middleware/src/store/index.js';
import { RedisIdempotencyStore } from '../../../packages/middleware/src/store/redis-idempotency-store.js';
import { RedisCluster } from '../../support/redis-cluster.js';
import { chat, keyOf, startPolicyStack } from '../policy/policy-fixture.js';

/** Two Tollgate instances on a real three-node Redis Cluster, as behind a load balancer (README "Redis Cluster"). */
describe('several instances on a Redis Cluster', function () {
  this.timeout(60_000);
  let cluster: RedisCluster;
  let client: Cluster;
  let a: Awaited<ReturnType<typeof startPolicyStack>>;
  let b: Awaited<ReturnType<typeof startPolicyStack>>;
  const orgs = ['acme', 'globex', 'initech', 'umbrella', 'hooli', 'vehement'];
  let prefix: string;

  before(async () => {
    cluster = await RedisCluster.start();
    client = new Cluster(cluster.urls);
  });
  after(async () => {
    client?.disconnect();
    await cluster?.close();
  });
  beforeEach(async () => {
    prefix = `k${Math.random().toString(36).slice(2)}:`;
    // 0.05 USD covers a call's reservation (a 4,096-token default output budget at 10 USD per million: README "Reservations").
    const organizations = Object.fromEntries(orgs.map((org) => [org, { wallet: 0.05, limits: { rpm: 4, concurrency: 2 } }]));
    const store = { kind: 'redis' as const, cluster: cluster.urls, prefix, ledger: { dir: 'ledger', exportEveryMs: 20 } };
    a = await startPolicyStack(organizations, { store });
    b = await startPolicyStack(organizations, { store });
  });
  afterEach(async () => {
    await a?.close();
    await b?.close();
  });

  it('keeps each organization\'s keys in one slot, the organizations spread over the nodes', async () => {
    assert.equal((await chat(a.gateway.url, 'acme')).status, 200);
    const owners = new Set<string>();
    for (const org of orgs) {
      const keys = ['bal', 'win', 'slots', 'lapsed', 'revoked', 'ledger', 'changes', 'ledger-exporter', 'reservations', 'key:k1:state', 'idem:0a1b', 'idem-index', 'idem-sizes'].map((name) => `${prefix}{${org}}:${name}`);
      const slots = new Set(await Promise.all(keys.map((key) => client.call('CLUSTER', 'KEYSLOT', key) as Promise<number>)));
      assert.equal(slots.size, 1, `${org}: one slot`);
      owners.add(client.slots[[...slots][0]!]![0]!);
    }
    assert.ok(owners.size >= 2, 'the organizations spread over more than one node');
    const acme = await client.hgetall(`${prefix}{acme}:win`);
    assert.ok(Object.keys(acme).length > 0 && Object.keys(acme).length <= 125);
  });

  it('bounds each organization\'s idempotency records on its own node: the oldest kept answers are deleted there', async () => {
    const store = new RedisIdempotencyStore(client, prefix, { maxEntries: 3, maxBytes: 1_000_000 });
    for (const org of orgs) {
      for (let i = 0; i < 10; i++) {
        const claim = await store.begin(org, `k${i}`, 'fp');
        if (claim.state === 'claimed') await store.complete(org, `k${i}`, claim.token, { status: 200, headers: [], body: Buffer.from(`answer ${i}`) });
      }
      assert.deepEqual([(await store.begin(org, 'k9', 'fp')).state, (await store.begin(org, 'k7', 'fp')).state, (await store.begin(org, 'k0', 'fp')).state], ['done', 'done', 'claimed'], org);
    }
  });

  it('shares limits and wallets across both instances, for every organization', async () => {
    for (const org of orgs) {
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await chat((i % 2 ? a : b).gateway.url, org)).status);
      assert.deepEqual(statuses, [200, 200, 200, 200, 429], org);
      const usage = await a.gateway.gate.admin.usage(org);
      assert.deepEqual([usage.requests, Math.round(usage.wallet * 1e6), usage.inFlight], [4, 50_000 - 4 * 48, 0], org);
    }
  });

  it('refuses a key on the other instance once it is revoked, on the SQL endpoint too', async () => {
    assert.equal((await chat(b.gateway.url, 'globex')).status, 200);
    assert.ok(await a.gateway.gate.admin.revokeKey(keyOf('globex')));
    assert.equal((await chat(b.gateway.url, 'globex')).status, 401);
    assert.equal((await chat(b.gateway.url, 'acme')).status, 200, 'other keys are untouched');
    // The SQL endpoint, which admits nothing, learns it over pub/sub.
    const sql = () => fetch(`${b.gateway.url}/api/sql/query`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${keyOf('globex')}` }, body: JSON.stringify({ query: 'SELECT 1' }) });
    let status = (await sql()).status;
    for (let i = 0; i < 100 && status === 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      status = (await sql()).status;
    }
    assert.equal(status, 401);
  });

  it('exports each organization\'s ledger stream to the instances\' files and trims it', async () => {
    for (const org of orgs) for (let i = 0; i < 3; i++) assert.equal((await chat((i % 2 ? a : b).gateway.url, org)).status, 200);
    const left = async () => (await Promise.all(orgs.map((org) => client.xlen(`${prefix}{${org}}:ledger`)))).reduce((sum, n) => sum + n, 0);
    for (let i = 0; i < 300 && (await left()) > 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(await left(), 0);
    const ids = new Set<string>();
    let micros = 0;
    for (const stack of [a, b]) {
      for await (const line of readLedger(`${stack.baseDir}/ledger`, {})) {
        ids.add(line.id);
        micros += line.cost;
      }
    }
    assert.equal(ids.size, orgs.length * 3);
    assert.equal(micros, orgs.length * 3 * 48);
  });
});
