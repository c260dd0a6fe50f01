import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeyRing } from '../../../packages/middleware/src/auth/index.js';
import { parseConfig, type ConfigInput } from '../../../packages/middleware/src/config/index.js';
import { ServiceError } from '../../../packages/middleware/src/errors/index.js';
import { type Admission, type AdminOperations, type AdmissionRequest, type Policy } from '../../../packages/middleware/src/policy/index.js';
import { createPolicy } from '../../../packages/middleware/src/store/index.js';
import { TestClock } from './policy-fixture.js';

/** Where the instances under test keep their state: a memory store, or one Redis (server or Cluster) shared by two. */
export interface LimitSetup {
  name: string;
  instances: number;
  store: () => ConfigInput['store'];
}

const request = (estimatedInputTokens = 10): AdmissionRequest => ({ principal: { keyId: 'k1', org: 'acme', scopes: ['models'] }, alias: 'gpt', billing: 'wallet', price: { input: 0, output: 0 }, estimatedInputTokens, maxOutputTokens: 64 });

/** Second 0 of the tests' clock, plus `ms`. */
const T0 = Date.parse('2026-11-22T12:00:00Z');
const at = (ms: number) => T0 + ms;

/**
 * The rate limits' promise (README "Rate limits: the promise") at its edges, through the policy API with
 * an injected clock, admissions alternating between the instances: something counted in second s counts
 * until second s + 61 starts, never longer, and Retry-After names exactly that wait.
 */
export function describeLimitEdges(setup: LimitSetup): void {
  describe(`rate limits at their edges: ${setup.name}`, function () {
    let dir: string;
    let clock: TestClock;
    let instances: { policy: Policy; admin: AdminOperations }[];
    let next = 0;

    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'tollgate-edges-'));
      clock = new TestClock(T0);
      next = 0;
    });
    afterEach(async () => {
      for (const { policy } of instances.splice(0)) await policy.close();
      rmSync(dir, { recursive: true, force: true });
    });

    async function start(limits: { rpm?: number; tpm?: number; concurrency?: number }): Promise<void> {
      const store = setup.store();
      instances = [];
      for (let i = 0; i < setup.instances; i++) {
        const { config } = parseConfig({ organizations: { acme: { wallet: 1, limits } }, store, policyTimeoutMs: 2_000 }, {});
        instances.push(await createPolicy({ config, keys: new KeyRing(), clock, baseDir: join(dir, String(i)) }));
      }
    }

    /** Admits on the next instance in turn at `time`: the admission, or the refusal's Retry-After. */
    async function admitAt(time: number, estimate = 10): Promise<Admission | number> {
      clock.time = time;
      const { policy } = instances[next++ % instances.length]!;
      try {
        return await policy.admit(request(estimate));
      } catch (error) {
        assert.ok(error instanceof ServiceError && error.kind === 'rate_limited', String(error));
        return error.options.retryAfterSeconds!;
      }
    }
    const admitted = (outcome: Admission | number): Admission => {
      assert.equal(typeof outcome, 'object', `refused with Retry-After ${String(outcome)}`);
      return outcome as Admission;
    };

    it('requests per minute: refused at the limit with the real wait, admitted exactly when the oldest second leaves', async () => {
      await start({ rpm: 3 });
      await admitted(await admitAt(at(400))).settle({ inputTokens: 1, outputTokens: 1 });
      await admitted(await admitAt(at(10_000))).settle({ inputTokens: 1, outputTokens: 1 });
      await admitted(await admitAt(at(59_900))).settle({ inputTokens: 1, outputTokens: 1 });
      // An instance whose clock is behind (20.2 s) counts into the newest second: second 0 counts until 61 s,
      // 40.8 s from 20.2 s, so Retry-After 41. (With one instance, an earlier second is its clock stepping back,
      // and the window moves back with it: clock-steps.test.ts.)
      if (setup.instances > 1) assert.equal(await admitAt(at(20_200)), 41);
      assert.equal(await admitAt(at(60_999)), 1);
      admitted(await admitAt(at(61_000)));
      // Now seconds 10, 59 and 61 count; second 10 leaves at 71 s.
      assert.equal(await admitAt(at(61_000)), 10);
      assert.equal(await admitAt(at(70_999)), 1);
      admitted(await admitAt(at(71_000)));
    });

    it('requests per minute: never more than the limit in any trailing 60 s, and a refusal only with the limit reached in the last 61 s', async () => {
      await start({ rpm: 5 });
      const admittedAt: number[] = [];
      let time = at(0);
      let seed = 7;
      const random = () => ((seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647);
      for (let attempt = 0; attempt < 150; attempt++) {
        time += Math.floor(random() * 4_000);
        const outcome = await admitAt(time);
        const inLast = (ms: number) => admittedAt.filter((t) => t > time - ms).length;
        if (typeof outcome === 'number') {
          assert.ok(inLast(61_000) >= 5, `refused at +${time - T0} ms with ${inLast(61_000)} in the last 61 s`);
        } else {
          admittedAt.push(time);
          await outcome.settle({ inputTokens: 1, outputTokens: 1 });
          assert.ok(inLast(60_000) <= 5, `${inLast(60_000)} admitted in the 60 s before +${time - T0} ms`);
        }
      }
      assert.ok(admittedAt.length >= 20, `admitted ${admittedAt.length}`);
    });

    it('tokens per minute: settlement corrects the admission\'s second by actual minus estimate', async () => {
      await start({ tpm: 100 });
      const first = admitted(await admitAt(at(0), 10));
      admitted(await admitAt(at(1_000), 80)); // 90 estimated in the window
      assert.equal(await admitAt(at(2_000), 20), 59, 'over the limit on estimates: second 0 leaves at 61 s');
      await first.settle({ inputTokens: 5, outputTokens: 0 }); // second 0 now holds 5: 85 in the window
      admitted(await admitAt(at(2_000), 15)); // exactly 100
      assert.equal(await admitAt(at(2_000), 1), 59);
      // Second 1's 80 leave at 62 s; second 0's 5 at 61 s, which frees too little for 20 more.
      assert.equal(await admitAt(at(61_000), 20), 1);
      admitted(await admitAt(at(62_000), 20));
    });

    it('tokens per minute: a settlement after its second left the window changes nothing', async () => {
      await start({ tpm: 100 });
      const late = admitted(await admitAt(at(0), 50));
      admitted(await admitAt(at(61_000), 60));
      await late.settle({ inputTokens: 500, outputTokens: 500 });
      admitted(await admitAt(at(61_500), 40)); // 100: the late 1,000 tokens counted nowhere
      assert.equal(await admitAt(at(61_500), 1), 61);
    });

    it('tokens per minute: a prompt larger than the whole limit waits for an empty window, then goes alone', async () => {
      await start({ tpm: 100 });
      await admitted(await admitAt(at(3_000), 30)).settle({ inputTokens: 30, outputTokens: 0 });
      assert.equal(await admitAt(at(4_000), 500), 60);
      admitted(await admitAt(at(64_000), 500));
      assert.equal(await admitAt(at(64_000), 1), 61);
    });

    it('concurrency: slots bounded by the limit, Retry-After 1, and a settled request frees its slot at once', async () => {
      await start({ concurrency: 2 });
      const one = admitted(await admitAt(at(0)));
      admitted(await admitAt(at(0)));
      assert.equal(await admitAt(at(0)), 1);
      await one.settle({ inputTokens: 1, outputTokens: 1 });
      admitted(await admitAt(at(0)));
      assert.equal(await admitAt(at(0)), 1);
      assert.equal((await instances[0]!.admin.usage('acme')).inFlight, 2);
    });
  });
}
