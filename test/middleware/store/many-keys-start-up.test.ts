import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeyRing } from '../../../packages/middleware/src/auth/index.js';
import { parseConfig } from '../../../packages/middleware/src/config/index.js';
import type { JournalRecord } from '../../../packages/middleware/src/store/index.js';
import { createPolicy } from '../../../packages/middleware/src/store/index.js';
import { TestClock } from '../policy/policy-fixture.js';

const KEYS = 10_000;
/**
 * Linear work over 10,000 keys and 30,000 lines takes tens of milliseconds; each history line looking its key up
 * by a scan of every key took 2–5 s here. The bound is loose enough for a loaded two-core machine.
 */
const START_BOUND_MS = 1_500;

const quiet = { error: (...args: unknown[]) => console.error(...args), info: () => undefined };

/**
 * Keys created through the store and revoked again are history an operator makes by hand (`tollgate admin keys
 * create`, the console's Create key). A start-up replays them: each key's and each revocation's line, and each
 * settlement's key, must cost a lookup, not a pass over every key made before it.
 */
describe('memory store: a start-up after many created and revoked keys takes a time linear in them', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-many-keys-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it(`${KEYS} keys, each created, used and revoked: the migration and the start from its snapshot each take under ${START_BOUND_MS} ms, and the keys are as they were left`, async function () {
    this.timeout(60_000);
    // An old-format journal (the store's one file before snapshots): the first start replays every line of it.
    const lines: JournalRecord[] = [{ t: 'open', at: 0, org: 'acme', micros: 1_000_000_000, payment: false }];
    const keyIds: string[] = [];
    for (let i = 0; i < KEYS; i++) {
      const keyId = `key_${String(i).padStart(16, '0')}`;
      keyIds.push(keyId);
      lines.push({ t: 'key', at: i, keyId, org: 'acme', scopes: ['models'], sha256: createHash('sha256').update(`tg-key-${i}`).digest('hex') });
      lines.push({ t: 'settle', id: `s${i}`, at: i, org: 'acme', keyId, alias: 'gpt', in: 10, out: 20, included: 0, cost: 3 });
    }
    for (const keyId of keyIds) lines.push({ t: 'revoke', at: KEYS, keyId });
    writeFileSync(join(dir, 'state.json'), lines.map((line) => `${JSON.stringify(line)}\n`).join(''), { mode: 0o600 });
    const { config } = parseConfig({ organizations: { acme: { wallet: 1000 } }, store: { kind: 'memory', file: 'state.json' } }, {});

    const timedStart = async () => {
      const keys = new KeyRing();
      const started = performance.now();
      const opened = await createPolicy({ config, keys, clock: new TestClock(), baseDir: dir, logger: quiet });
      return { ...opened, keys, ms: performance.now() - started };
    };
    const migrated = await timedStart();
    const usage = await migrated.admin.usage('acme');
    await migrated.policy.close();
    const restarted = await timedStart();
    try {
      console.log(`      migration ${migrated.ms.toFixed(0)} ms, start from the snapshot ${restarted.ms.toFixed(0)} ms`);
      assert.ok(migrated.ms < START_BOUND_MS, `the migration took ${migrated.ms.toFixed(0)} ms`);
      assert.ok(restarted.ms < START_BOUND_MS, `the start from the snapshot took ${restarted.ms.toFixed(0)} ms`);
      assert.equal(usage.requests, KEYS);
      assert.deepEqual(usage.keys?.[keyIds[KEYS - 1]!], { requests: 1, inputTokens: 10, outputTokens: 20, costUsd: 0.000003, budgetRemaining: null, budgetResetAt: null, inFlight: 0 });
      const records = restarted.keys.records();
      assert.equal(records.length, KEYS);
      assert.ok(records.every((record) => record.revoked), 'every key is revoked again after the restart');
      assert.equal((await restarted.admin.usage('acme')).keys?.[keyIds[0]!]?.requests, 1);
    } finally {
      await restarted.policy.close();
    }
  });
});
