import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeyRing } from '../../../packages/middleware/src/auth/index.js';
import { parseConfig } from '../../../packages/middleware/src/config/index.js';
import { type AdmissionRequest } from '../../../packages/middleware/src/policy/index.js';
import { createPolicy } from '../../../packages/middleware/src/store/index.js';
import { readLedger, type LedgerLine } from '../../../packages/middleware/src/store/index.js';
import { RedisServer } from '../../support/redis-server.js';
import { TestClock } from '../policy/policy-fixture.js';

const request: AdmissionRequest = { principal: { keyId: 'k1', org: 'acme', scopes: ['models'] }, alias: 'claude', billing: 'wallet', price: { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 }, estimatedInputTokens: 10, maxOutputTokens: 64 };

describe('Redis ledger files keep the cached-token breakdown', () => {
  let redis: RedisServer;
  let dir: string;
  before(async () => {
    redis = await RedisServer.start();
  });
  after(async () => {
    await redis.close();
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-cache-ledger-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('exports cached and written tokens with the cost they were billed at, and none on lines without them', async () => {
    const { config } = parseConfig({ organizations: { acme: { wallet: 10 } }, store: { kind: 'redis', url: redis.url, prefix: 'cl:', ledger: { dir: 'ledger', exportEveryMs: 60_000 } } }, {});
    const { policy } = await createPolicy({ config, keys: new KeyRing(), clock: new TestClock(), baseDir: dir, logger: { error() {} } });
    const charged = await (await policy.admit(request)).settle({ inputTokens: 2_000, outputTokens: 3, cachedInputTokens: 1_200, cacheWriteTokens: 500 });
    const plain = await (await policy.admit(request)).settle({ inputTokens: 10, outputTokens: 20 });
    // The export runs once more when the store closes.
    await policy.close();
    const lines: LedgerLine[] = [];
    for await (const line of readLedger(join(dir, 'ledger'), { org: 'acme' })) lines.push(line);
    // 300 × 3 + 1,200 × 0.3 + 500 × 3.75 + 3 × 15 = 3,180 µ$; 10 × 3 + 20 × 15 = 330 µ$.
    assert.deepEqual([charged, plain], [3_180, 330]);
    assert.deepEqual(lines.map((line) => [line.in, line.out, line.cached, line.written, line.cost]), [
      [2_000, 3, 1_200, 500, 3_180],
      [10, 20, undefined, undefined, 330],
    ]);
  });
});
