import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeyRing } from '../../../packages/middleware/src/auth/index.js';
import { parseConfig, type ConfigInput } from '../../../packages/middleware/src/config/index.js';
import { ServiceError } from '../../../packages/middleware/src/errors/index.js';
import type { Admission, AdmissionRequest, Policy } from '../../../packages/middleware/src/policy/index.js';
import { createPolicy } from '../../../packages/middleware/src/store/index.js';
import { TestClock } from './policy-fixture.js';
import { RedisServer } from '../../support/redis-server.js';

const T0 = Date.parse('2026-11-22T12:00:00Z');
const at = (ms: number) => T0 + ms;

type KeyLimits = { rpm?: number; tpm?: number; concurrency?: number };
const request = (estimatedInputTokens: number, keyLimits?: KeyLimits): AdmissionRequest => ({
  principal: { keyId: 'k1', org: 'acme', scopes: ['models'], ...(keyLimits ? { limits: keyLimits } : {}) } as AdmissionRequest['principal'],
  alias: 'gpt', billing: 'wallet', price: { input: 0, output: 0 }, estimatedInputTokens, maxOutputTokens: 64,
});

function describeBoth(name: string, store: () => ConfigInput['store']) {
  describe(`hunt: Retry-After is the real wait when two limits are full (${name})`, function () {
    this.timeout(20_000);
    let dir: string;
    let clock: TestClock;
    let policy: Policy | undefined;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'tollgate-hunt-'));
      clock = new TestClock(T0);
    });
    afterEach(async () => {
      await policy?.close();
      policy = undefined;
      rmSync(dir, { recursive: true, force: true });
    });
    async function start(limits: KeyLimits) {
      const { config } = parseConfig({ organizations: { acme: { wallet: 1, limits } }, store: store(), policyTimeoutMs: 2_000 }, {});
      ({ policy } = await createPolicy({ config, keys: new KeyRing(), clock, baseDir: dir }));
    }
    async function admitAt(time: number, estimate: number, keyLimits?: KeyLimits): Promise<Admission | number> {
      clock.time = time;
      try {
        return await policy!.admit(request(estimate, keyLimits));
      } catch (error) {
        assert.ok(error instanceof ServiceError && error.kind === 'rate_limited', String(error));
        return error.options.retryAfterSeconds!;
      }
    }

    it('rpm and tpm both full: a retry after Retry-After is admitted', async () => {
      await start({ rpm: 2, tpm: 100 });
      await (await admitAt(at(0), 5) as Admission).settle({ inputTokens: 5, outputTokens: 0 });
      await (await admitAt(at(30_000), 90) as Admission).settle({ inputTokens: 90, outputTokens: 0 });
      // rpm full until second 0 leaves (61 s); tpm too full for 50 until second 30 leaves (91 s).
      const wait = await admitAt(at(40_000), 50);
      assert.equal(typeof wait, 'number');
      const retry = await admitAt(at(40_000) + (wait as number) * 1_000, 50);
      assert.equal(typeof retry, 'object', `retried after Retry-After ${String(wait)} s and refused again (Retry-After ${String(retry)})`);
    });

    it('organization rpm and key rpm both full: a retry after Retry-After is admitted', async () => {
      await start({ rpm: 2 });
      const k1 = { rpm: 1 };
      // Another key (no limits of its own) counts in the organization's window at second 0.
      clock.time = at(0);
      await (await policy!.admit({ ...request(5), principal: { keyId: 'k2', org: 'acme', scopes: ['models'] } as AdmissionRequest['principal'] })).settle({ inputTokens: 5, outputTokens: 0 });
      // k1 (rpm 1) at second 30: the organization's window is now full until 61 s, k1's until 91 s.
      await (await admitAt(at(30_000), 5, k1) as Admission).settle({ inputTokens: 5, outputTokens: 0 });
      const wait = await admitAt(at(40_000), 5, k1);
      assert.equal(typeof wait, 'number');
      const retry = await admitAt(at(40_000) + (wait as number) * 1_000, 5, k1);
      assert.equal(typeof retry, 'object', `retried after Retry-After ${String(wait)} s and refused again (Retry-After ${String(retry)})`);
    });
  });
}

describeBoth('memory store', () => ({ kind: 'memory' }));
describe('hunt with Redis', function () {
  let redis: RedisServer;
  before(async function () {
    this.timeout(20_000);
    redis = await RedisServer.start();
  });
  after(() => redis.close());
  describeBoth('redis', () => ({ kind: 'redis', url: redis.url, prefix: `h${Math.random().toString(36).slice(2)}:`, ledger: false }));
});
