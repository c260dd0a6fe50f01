import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashKey, KeyRing } from '../../../packages/middleware/src/auth/index.js';
import { parseConfig } from '../../../packages/middleware/src/config/index.js';
import { type AdmissionRequest } from '../../../packages/middleware/src/policy/index.js';
import { createPolicy } from '../../../packages/middleware/src/store/index.js';
import { TestClock } from '../policy/policy-fixture.js';

const KEY = 'tg-snapshot-key-0001-0123456789abcdef';
const KEY_ID = 'budgeted';
/** 10 input + 20 output tokens at 2.5 / 10 USD per million: 225 micro-dollars each. */
const USAGE = { inputTokens: 10, outputTokens: 20 };

const request: AdmissionRequest = {
  principal: { keyId: KEY_ID, org: 'acme', scopes: ['models'], budget: { usd: 1, period: 'month' } },
  alias: 'gpt',
  billing: 'wallet',
  price: { input: 2.5, output: 10 },
  estimatedInputTokens: 10,
  maxOutputTokens: 64,
};

/** README "Per-key limits and budgets" + "The memory store's files": a key's spend outlives a restart. */
describe('memory store: per-key totals and budget spend across a snapshot and its journal', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-key-snapshot-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function start(clock: TestClock) {
    const { config } = parseConfig({
      keys: [{ key: KEY, org: 'acme', id: KEY_ID, budget: { usd: 1, period: 'month' } }],
      organizations: { acme: { wallet: 10 } },
      store: { kind: 'memory', file: 'state.json', snapshotAfterBytes: 4096 },
    }, {});
    return createPolicy({ config, keys: KeyRing.fromConfig(config.keys), clock, baseDir: dir });
  }

  it('reports the same key usage after a restart that reads a snapshot and then the journal after it', async () => {
    assert.equal(hashKey(KEY).length, 64);
    const clock = new TestClock();
    const first = await start(clock);
    // Enough settlements for the journal to pass 4 KiB (a snapshot), then some journalled after it.
    for (let i = 0; i < 40; i++) await (await first.policy.admit(request)).settle(USAGE);
    const before = (await first.admin.usage('acme')).keys?.[KEY_ID];
    await first.policy.close();
    assert.deepEqual(before && { requests: before.requests, costUsd: before.costUsd, budgetRemaining: before.budgetRemaining }, { requests: 40, costUsd: 0.009, budgetRemaining: 0.991 });
    const snapshot = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')) as { keyStates?: Record<string, { requests: number }> };
    const inSnapshot = snapshot.keyStates?.[KEY_ID]?.requests ?? 0;
    assert.ok(inSnapshot > 0 && inSnapshot < 40, `the snapshot holds some of the key's settlements, the journal the rest (snapshot: ${inSnapshot})`);

    const second = await start(clock);
    try {
      assert.deepEqual((await second.admin.usage('acme')).keys?.[KEY_ID], before);
    } finally {
      await second.policy.close();
    }
  });
});
