import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashKey, KeyRing } from '../../../packages/middleware/src/auth/index.js';
import { parseConfig } from '../../../packages/middleware/src/config/index.js';
import { type AdmissionRequest } from '../../../packages/middleware/src/policy/index.js';
import { createPolicy } from '../../../packages/middleware/src/store/index.js';
import { readLedger, type LedgerLine } from '../../../packages/middleware/src/store/index.js';
import { TestClock } from '../policy/policy-fixture.js';

const KEY = 'tg-cache-totals-key-0123456789abcdef';
const PRICE = { input: 2.5, output: 10, cachedInput: 1.25, cacheWrite: 3.125 };
/** 1,000 prompt tokens of which 600 read from the cache and 100 written to it, 10 out. */
const USAGE = { inputTokens: 1_000, outputTokens: 10, cachedInputTokens: 600, cacheWriteTokens: 100 };
/** 300 × 2.5 + 600 × 1.25 + 100 × 3.125 + 10 × 10 = 750 + 750 + 312.5 + 100 = 1,912.5 → 1,913 µ$. */
const COST = 1_913;

const request: AdmissionRequest = {
  principal: { keyId: 'config-0-' + hashKey(KEY).slice(0, 8), org: 'acme', scopes: ['models'] },
  alias: 'gpt',
  billing: 'wallet',
  price: PRICE,
  estimatedInputTokens: 10,
  maxOutputTokens: 64,
};

// i17-billing merged onto i14-store: the cache breakdown must survive both ways the memory store rebuilds its state.
describe('the memory store keeps cached and written prompt totals across restarts (journal replay and snapshot)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-cache-totals-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function start() {
    const { config } = parseConfig({ keys: [{ key: KEY, org: 'acme' }], organizations: { acme: { wallet: 10 } }, store: { kind: 'memory', file: 'state.json', snapshotAfterBytes: 4096 } }, {});
    return createPolicy({ config, keys: KeyRing.fromConfig(config.keys), clock: new TestClock(), baseDir: dir, logger: { error() {} } });
  }

  async function settle(times: number): Promise<number[]> {
    const { policy } = await start();
    const costs: number[] = [];
    for (let i = 0; i < times; i++) costs.push((await (await policy.admit(request)).settle(USAGE)) ?? -1);
    await policy.close();
    return costs;
  }

  it('replays the journal into the same cached/written totals, and the ledger lines carry the breakdown', async () => {
    assert.deepEqual(await settle(1), [COST], 'settle resolves to the micro-dollars charged');
    const { policy, admin } = await start();
    const usage = await admin.usage('acme');
    await policy.close();
    assert.deepEqual([usage.inputTokens, usage.cachedInputTokens, usage.cacheWriteTokens, usage.costUsd], [1_000, 600, 100, COST / 1_000_000]);
    const lines: LedgerLine[] = [];
    for await (const line of readLedger(join(dir, 'state.json.ledger'), {})) lines.push(line);
    assert.deepEqual(lines.map((line) => [line.in, line.cached, line.written, line.cost]), [[1_000, 600, 100, COST]]);
  });

  it('keeps the totals in a snapshot that replaced the journal', async () => {
    await settle(40);
    assert.ok(existsSync(join(dir, 'state.json')) && readFileSync(join(dir, 'state.json'), 'utf8').includes('"cachedInputTokens":'), 'a snapshot was written, with the cache totals');
    await settle(1);
    const { policy, admin } = await start();
    const usage = await admin.usage('acme');
    await policy.close();
    assert.deepEqual([usage.requests, usage.inputTokens, usage.cachedInputTokens, usage.cacheWriteTokens, usage.costUsd], [41, 41_000, 41 * 600, 41 * 100, (41 * COST) / 1_000_000]);
  });
});
