import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { hashKey, KeyRing } from '../../../packages/middleware/src/auth/index.js';
import { parseConfig, type ConfigInput } from '../../../packages/middleware/src/config/index.js';
import { createPolicy } from '../../../packages/middleware/src/store/index.js';
import { startGateway, type RunningGateway } from '../../support/gateway.js';
import { RedisServer } from '../../support/redis-server.js';
import { TestClock } from '../policy/policy-fixture.js';

const KEY = 'tg-key-ids-0123456789abcdef-ABCDEF';
const LEGACY_ID = `config-0-${hashKey(KEY).slice(0, 8)}`;

/** Opens the policy over `store` with one configured key, admits and settles one call; answers the key's id in the ledger. */
async function settleOne(store: ConfigInput['store'], baseDir: string): Promise<string> {
  const { config } = parseConfig({ keys: [{ key: KEY, org: 'acme' }], organizations: { acme: { wallet: 1 } }, store }, {});
  const keys = KeyRing.fromConfig(config.keys);
  const { policy } = await createPolicy({ config, keys, clock: new TestClock(), baseDir });
  try {
    const principal = keys.find(hashKey(KEY))!;
    const admission = await policy.admit({ principal, alias: 'gpt', billing: 'wallet', price: { input: 1, output: 1 }, estimatedInputTokens: 0, maxOutputTokens: 10 });
    await admission.settle({ inputTokens: 3, outputTokens: 4 });
    return principal.keyId;
  } finally {
    await policy.close();
  }
}

function ledgerKeyIds(dir: string): string[] {
  // Settlements are in the ledger files beside the store file, named in the order they were started.
  const ledger = join(dir, 'state.json.ledger');
  const lines = readdirSync(ledger).sort().flatMap((name) => readFileSync(join(ledger, name), 'utf8').split('\n').filter(Boolean));
  return lines.map((line) => JSON.parse(line) as { t: string; keyId?: string }).filter((line) => line.t === 'settle').map((line) => line.keyId!);
}

async function sqlStatus(gateway: RunningGateway, key: string): Promise<number> {
  const response = await fetch(`${gateway.url}/api/sql/query`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ query: 'SELECT 1' }) });
  return response.status;
}

describe('key ids of configured keys', function () {
  const dirs: string[] = [];
  let redis: RedisServer;
  before(async () => {
    redis = await RedisServer.start();
  });
  after(() => redis.close());
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-key-ids-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('write ledger lines with an id that holds no part of the key\'s hash, the same after a restart, another in another installation', async () => {
    const dir = tempDir();
    const first = await settleOne({ kind: 'memory', file: 'state.json' }, dir);
    const second = await settleOne({ kind: 'memory', file: 'state.json' }, dir);
    assert.match(first, /^cfg_[0-9a-f]{16}$/);
    assert.deepEqual(ledgerKeyIds(dir), [first, second]);
    assert.equal(second, first, 'stable across restarts');
    const hash = hashKey(KEY);
    for (let i = 0; i + 8 <= hash.length; i++) assert.ok(!first.includes(hash.slice(i, i + 8)), 'no 32-bit piece of the bare hash');
    const elsewhere = await settleOne({ kind: 'memory', file: 'state.json' }, tempDir());
    assert.notEqual(elsewhere, first, 'the installation secret differs');
  });

  it('are the same on every Redis instance sharing a prefix', async () => {
    const store = { kind: 'redis' as const, url: redis.url, prefix: `ids${Date.now()}:` };
    const a = await settleOne(store, tempDir());
    const b = await settleOne(store, tempDir());
    assert.match(a, /^cfg_[0-9a-f]{16}$/);
    assert.equal(b, a);
  });

  it('keeps refusing a key revoked under the id an earlier version gave it (memory journal)', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'state.json'), `${JSON.stringify({ t: 'revoke', at: 0, keyId: LEGACY_ID })}\n`);
    const gateway = await startGateway({ keys: [{ key: KEY, org: 'acme' }], organizations: { acme: {} }, store: { kind: 'memory', file: 'state.json' } }, { baseDir: dir });
    try {
      assert.equal(await sqlStatus(gateway, KEY), 401);
    } finally {
      await gateway.close();
    }
  });

  it('keeps refusing a key revoked under the id an earlier version gave it (Redis), and carries the revocation over to its new id', async () => {
    const prefix = `legacy${Date.now()}:`;
    const client = new Redis(redis.url);
    await client.sadd(`${prefix}revoked`, LEGACY_ID);
    client.disconnect();
    const gateway = await startGateway({ keys: [{ key: KEY, org: 'acme' }], organizations: { acme: {} }, store: { kind: 'redis', url: redis.url, prefix } }, { baseDir: tempDir() });
    try {
      assert.equal(await sqlStatus(gateway, KEY), 401);
      const check = new Redis(redis.url);
      const revoked = await check.smembers(`${prefix}{acme}:revoked`);
      check.disconnect();
      assert.equal(revoked.filter((id) => /^cfg_[0-9a-f]{16}$/.test(id)).length, 1, 'the admission script sees it under the new id too');
    } finally {
      await gateway.close();
    }
  });

  it('answer 503 policy_unavailable while an instance that started without Redis has not read the secret, then work', async function () {
    this.timeout(45_000);
    const own = await RedisServer.start();
    try {
      await own.stop();
      const gateway = await startGateway({ keys: [{ key: KEY, org: 'acme' }], organizations: { acme: {} }, store: { kind: 'redis', url: own.url, prefix: 'away:' }, policyTimeoutMs: 200 }, { baseDir: tempDir() });
      try {
        assert.equal(await sqlStatus(gateway, KEY), 503, 'fail closed: the key cannot be named yet');
        await own.restart();
        let status = 0;
        // ioredis reconnects at most once a second; under a loaded machine the first answers can take a while.
        for (let i = 0; i < 300 && status !== 200; i++) {
          status = await sqlStatus(gateway, KEY);
          if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
        }
        assert.equal(status, 200, 'named once Redis answers');
      } finally {
        await gateway.close();
      }
    } finally {
      await own.close();
    }
  });

  it('are refused at config parse below the minimum strength, with a message saying how to make one', () => {
    const parse = (key: string) => parseConfig({ keys: [{ key, org: 'acme' }], organizations: { acme: {} } }, {});
    assert.throws(() => parse('tg-short-key-0123456789abcdef'), /keys\.0\.key: an API key must be at least 32 characters/);
    assert.throws(() => parse('a'.repeat(64)), /at least 8 different characters; make one with `tollgate admin keys create`/);
    assert.throws(() => parse('abababababababababababababababab'), /at least 8 different characters/);
    assert.doesNotThrow(() => parse('3f9c2b7e1a04d5c8b6e2f1a9d7c3b5e0'));
  });
});
