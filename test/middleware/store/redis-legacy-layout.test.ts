import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { hashKey, KeyRing } from '../../../packages/middleware/src/auth/index.js';
import { parseConfig } from '../../../packages/middleware/src/config/index.js';
import { ServiceError } from '../../../packages/middleware/src/errors/index.js';
import { type AdmissionRequest } from '../../../packages/middleware/src/policy/index.js';
import { createPolicy } from '../../../packages/middleware/src/store/index.js';
import { readLedger, type LedgerLine } from '../../../packages/middleware/src/store/index.js';
import { RedisServer } from '../../support/redis-server.js';
import { TestClock } from '../policy/policy-fixture.js';

const KEY = 'tg-legacy-layout-key-1-0123456789abcdef';

describe('a Redis written by the version before per-organization slots', function () {
  let redis: RedisServer;
  let client: Redis;
  let dir: string;
  before(async () => {
    redis = await RedisServer.start();
    client = new Redis(redis.url);
  });
  after(async () => {
    client.disconnect();
    await redis.close();
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-legacy-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps balances, revocations, the ledger and a settlement pending at the upgrade', async () => {
    const prefix = `l${Math.random().toString(36).slice(2)}:`;
    const clock = new TestClock();
    const now = clock.now();
    const keys = KeyRing.fromConfig(parseConfig({ keys: [{ key: KEY, org: 'acme' }], organizations: { acme: {} } }, {}).config.keys);
    // The id the old version gave a configured key (config-<n>-<hash prefix>).
    const [keyId] = [...keys.legacyIds().keys()] as [string];
    // What the old version left: its balance hash and per-request windows, one revocation set, one
    // ledger stream, a lease in flight and that request's settlement in the pending file.
    const old = `${prefix}org:acme:`;
    await client.hset(`${old}bal`, { wallet: 7_000_000, payment: '1', incUsed: 0, resetAt: '', requests: 3, in: 30, out: 60, cost: 675, tpmUsed: 90 });
    await client.zadd(`${old}rpm`, now, 'a1');
    await client.hset(`${old}tpmtok`, 'a1', 30);
    await client.zadd(`${old}slots`, now + 900_000, 'pending-1');
    await client.sadd(`${prefix}revoked`, keyId);
    for (let i = 0; i < 3; i++) await client.xadd(`${prefix}ledger`, '*', 't', 'settle', 'id', `old-${i}`, 'org', 'acme', 'keyId', keyId, 'alias', 'gpt', 'in', 10, 'out', 20, 'included', 0, 'cost', 225, 'at', now - 1000 + i);
    await client.xadd(`${prefix}ledger`, '*', 't', 'topup', 'org', 'acme', 'micros', 5_000_000, 'at', now);
    const pendingArgs = [`${old}bal`, `${old}tpmtok`, `${old}slots`, `${prefix}ledger`, `${prefix}settled:pending-1`, 'pending-1', 10, 20, 'wallet', -1, 2_500_000, 10_000_000, now, '', 'acme', keyId, 'gpt'];
    writeFileSync(join(dir, 'pending.jsonl'), `${JSON.stringify({ t: 'pending', id: 'pending-1', args: pendingArgs })}\n`);

    const { config } = parseConfig({ keys: [{ key: KEY, org: 'acme' }], organizations: { acme: { wallet: 100 } }, store: { kind: 'redis', url: redis.url, prefix, pendingFile: 'pending.jsonl', ledger: { dir: 'ledger', exportEveryMs: 20 } }, policyTimeoutMs: 500 }, {});
    const { policy, admin } = await createPolicy({ config, keys, clock, baseDir: dir });
    try {
      assert.equal(keys.find(hashKey(KEY))?.revoked, true, 'the revocation carried over');
      const refusal = await policy.admit({ principal: { keyId, org: 'acme', scopes: ['models'] }, alias: 'gpt', billing: 'wallet', price: { input: 0, output: 0 }, estimatedInputTokens: 1, maxOutputTokens: 1 } satisfies AdmissionRequest).catch((error: unknown) => error);
      assert.ok(refusal instanceof ServiceError && refusal.kind === 'unauthorized');
      // The pending settlement is sent after a second; it finds its lease among the moved ones and charges once.
      let usage = await admin.usage('acme');
      for (let i = 0; i < 300 && usage.requests < 4; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        usage = await admin.usage('acme');
      }
      assert.deepEqual([usage.wallet, usage.paymentMethod, usage.requests, usage.costUsd], [7 - 0.000225, true, 4, 0.0009], 'the old balance, not the config\'s 100');
      for (let i = 0; i < 300 && (await client.xlen(`${prefix}{acme}:ledger`)) > 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      const lines: LedgerLine[] = [];
      for await (const line of readLedger(join(dir, 'ledger'), { org: 'acme' })) lines.push(line);
      assert.deepEqual(lines.map((line) => line.id).sort(), ['old-0', 'old-1', 'old-2', 'pending-1']);
      assert.deepEqual(await client.keys(`${prefix}org:*`), [], 'nothing of the old layout is left');
      assert.equal(await client.exists(`${prefix}ledger`, `${prefix}revoked`), 0);
      assert.equal(await client.xlen(`${prefix}{acme}:changes`), 1, 'the top-up is kept with the changes');
    } finally {
      await policy.close();
    }
  });
});
