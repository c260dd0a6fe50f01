import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Redis } from 'ioredis';
import { KeyRing } from '../../../packages/middleware/src/auth/index.js';
import { parseConfig, type ConfigInput } from '../../../packages/middleware/src/config/index.js';
import { type AdmissionRequest } from '../../../packages/middleware/src/policy/index.js';
import { createPolicy } from '../../../packages/middleware/src/store/index.js';
import { RedisServer } from '../../support/redis-server.js';
import { TestClock } from './policy-fixture.js';

const request: AdmissionRequest = { principal: { keyId: 'k1', org: 'acme', scopes: ['models'] }, alias: 'gpt', billing: 'wallet', price: { input: 0.01, output: 0.01 }, estimatedInputTokens: 12, maxOutputTokens: 64 };
/** Limits high enough never to refuse, so every admission is counted in every window. */
const limits = { rpm: 1e9, tpm: 1e12, concurrency: 1e6 };

async function start(store: ConfigInput['store'], clock: TestClock, baseDir: string) {
  const { config } = parseConfig({ organizations: { acme: { wallet: 1e6, limits } }, store, policyTimeoutMs: 5_000 }, {});
  return createPolicy({ config, keys: new KeyRing(), clock, baseDir });
}

/** Bytes of live heap after full collections. */
function liveHeap(): number {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

describe('what an organization\'s limits keep does not grow with its traffic (issue 14)', function () {
  this.timeout(300_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-bounded-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('memory store: 1,000,000 admissions in 100 s leave the heap where 10,000 left it', async () => {
    const clock = new TestClock();
    const { policy, admin } = await start({ kind: 'memory' }, clock, dir);
    const admitMany = async (count: number) => {
      for (let i = 0; i < count; i++) {
        clock.advance(0.1); // 10,000 per second: every second of the window holds 10,000 admissions
        const admission = await policy.admit(request);
        await admission.settle({ inputTokens: 12, outputTokens: 30 });
      }
    };
    await admitMany(10_000);
    const before = liveHeap();
    const started = performance.now();
    await admitMany(990_000);
    const elapsed = performance.now() - started;
    const grown = liveHeap() - before;
    const usage = await admin.usage('acme');
    assert.deepEqual([usage.requests, usage.inFlight], [1_000_000, 0]);
    // Per-request windows kept ~600,000 entries here (the last minute): tens of MiB.
    assert.ok(grown < 2 * 1024 * 1024, `live heap grew ${(grown / 1024 / 1024).toFixed(1)} MiB`);
    console.log(`      990,000 admissions + settlements in ${(elapsed / 1000).toFixed(1)} s; live heap ${grown >= 0 ? '+' : ''}${(grown / 1024).toFixed(0)} KiB`);
    await policy.close();
  });

  it('redis store: an organization\'s keys and fields after 10,000 admissions are as many as after 5,000', async () => {
    const redis = await RedisServer.start();
    const client = new Redis(redis.url);
    try {
      const store: ConfigInput['store'] = { kind: 'redis', url: redis.url, prefix: `b${Math.random().toString(36).slice(2)}:`, ledger: { dir: 'ledger', exportEveryMs: 50 } };
      const clock = new TestClock();
      let { policy } = await start(store, clock, dir);
      const admitMany = async (count: number) => {
        for (let i = 0; i < count; i += 100) {
          clock.advance(1_500); // 100 admissions each 1.5 s: every 5,000 span 75 s, more than the window
          await Promise.all(Array.from({ length: 100 }, async () => (await policy.admit(request)).settle({ inputTokens: 12, outputTokens: 30 })));
        }
      };
      /** Every key of the prefix and the entries in it (fields, members, stream entries), after a last export. */
      const kept = async () => {
        await policy.close();
        const keys = await client.keys(`${store.prefix}*`);
        let entries = 0;
        for (const key of keys) {
          const type = await client.type(key);
          entries += type === 'hash' ? await client.hlen(key) : type === 'zset' ? await client.zcard(key) : type === 'stream' ? await client.xlen(key) : type === 'set' ? await client.scard(key) : 1;
        }
        return { keys: keys.length, entries, windowFields: await client.hlen(`${store.prefix}{acme}:win`) };
      };
      await admitMany(5_000);
      const half = await kept();
      ({ policy } = await start(store, clock, dir));
      await admitMany(5_000);
      const all = await kept();
      console.log(`      after 5,000 admissions: ${JSON.stringify(half)}; after 10,000: ${JSON.stringify(all)}`);
      // 2 rings of 61 seconds + head and totals: at most 125 fields, however busy.
      assert.ok(all.windowFields <= 125, `${all.windowFields} window fields`);
      assert.deepEqual([all.keys, all.entries], [half.keys, half.entries]);
      assert.ok(all.entries <= 150, `${all.entries} entries`);
    } finally {
      client.disconnect();
      await redis.close();
    }
  });
});
