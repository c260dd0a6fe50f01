import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { hashKey, KeyRing } from '../../../packages/middleware/src/auth/index.js';
import { longestRequestMs, parseConfig, type ConfigInput } from '../../../packages/middleware/src/config/index.js';
import { ServiceError } from '../../../packages/middleware/src/errors/index.js';
import { type Admission, type AdmissionRequest } from '../../../packages/middleware/src/policy/index.js';
import { createPolicy } from '../../../packages/middleware/src/store/index.js';
import { readLedger } from '../../../packages/middleware/src/store/index.js';
import { RedisServer } from '../../support/redis-server.js';
import { TestClock } from '../policy/policy-fixture.js';

/** A lease lives a minute longer than the longest request (default relay: 30 minutes for an attempt). */
const LEASE_MS = longestRequestMs({ attemptDeadlineMs: 1_800_000 });

const PRICE = { input: 2.5, output: 10 };
/** 10 input + 20 output tokens at 2.5 / 10 USD per million: 25 + 200 = 225 micro-dollars. */
const USAGE = { inputTokens: 10, outputTokens: 20 };
const COST = 225;
/** What an admission of `request()` reserves: 10 input + 64 output tokens = 25 + 640 micro-dollars. */
const WORST_CASE = 665;
const KEY = 'tg-store-test-key-0001-0123456789abcdef';

const request = (billing: 'wallet' | 'included' = 'wallet'): AdmissionRequest => ({
  principal: { keyId: 'config-0-' + hashKey(KEY).slice(0, 8), org: 'acme', scopes: ['models'] },
  alias: 'gpt',
  billing,
  price: PRICE,
  estimatedInputTokens: 10,
  maxOutputTokens: 64,
});

async function denial(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
  assert.fail('expected a refusal');
}

/** Random interleaving from the event loop alone: no wall-clock sleeps. */
async function yieldRandomly(max: number): Promise<void> {
  for (let i = Math.floor(Math.random() * max); i > 0; i--) await new Promise((resolve) => setImmediate(resolve));
}

interface StoreUnderTest {
  name: string;
  store: () => ConfigInput['store'];
  /** Sum of the settlement costs in the durable ledger, in micro-dollars. */
  ledgerCost: (store: ConfigInput['store']) => Promise<{ entries: number; micros: number }>;
}

describe('policy stores (memory with a journal file, redis)', function () {
  let dir: string;
  let redis: RedisServer;
  const open: { close(): Promise<void> }[] = [];

  before(async () => {
    redis = await RedisServer.start();
  });
  after(() => redis.close());
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-stores-'));
  });
  afterEach(async () => {
    for (const policy of open.splice(0)) await policy.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function start(store: ConfigInput['store'], organizations: ConfigInput['organizations'], clock = new TestClock()) {
    const { config } = parseConfig({ keys: [{ key: KEY, org: 'acme' }], organizations, store, policyTimeoutMs: 500 }, {});
    const keys = KeyRing.fromConfig(config.keys);
    const { policy, admin } = await createPolicy({ config, keys, clock, baseDir: dir });
    open.push(policy);
    return { policy, admin, keys, clock };
  }

  const stores: StoreUnderTest[] = [
    {
      name: 'memory',
      store: () => ({ kind: 'memory', file: 'state.json' }),
      ledgerCost: async () => {
        const settles: { cost: number }[] = [];
        for await (const line of readLedger(join(dir, 'state.json.ledger'), {})) settles.push(line);
        return { entries: settles.length, micros: settles.reduce((sum, l) => sum + l.cost, 0) };
      },
    },
    {
      name: 'redis',
      store: () => ({ kind: 'redis', url: redis.url, prefix: `s${Math.random().toString(36).slice(2)}:` }),
      // What is still in the organization's stream plus what was exported from it to the ledger files.
      ledgerCost: async (store) => {
        const client = new Redis(redis.url);
        const entries = await client.xrange(`${(store as { prefix: string }).prefix}{acme}:ledger`, '-', '+');
        client.disconnect();
        const settles = entries.map(([, fields]) => Object.fromEntries(Array.from({ length: fields.length / 2 }, (_, i) => [fields[2 * i], fields[2 * i + 1]]))).filter((f) => f.t === 'settle');
        // By settlement id: an entry may be caught between its export and its trim.
        const costs = new Map(settles.map((f) => [f.id, Number(f.cost)]));
        for await (const line of readLedger(join(dir, 'data', 'ledger'), { org: 'acme' })) costs.set(line.id, line.cost);
        return { entries: costs.size, micros: [...costs.values()].reduce((sum, cost) => sum + cost, 0) };
      },
    },
  ];

  for (const { name, store, ledgerCost } of stores) {
    describe(name, () => {
      it('settles once however often settle is called, with one ledger entry', async () => {
        const config = store();
        const { policy, admin } = await start(config, { acme: { wallet: 1 } });
        const admission = await policy.admit(request());
        await Promise.all([admission.settle(USAGE), admission.settle(USAGE), admission.settle({ inputTokens: 999, outputTokens: 999 })]);
        await admission.settle(USAGE);
        const usage = await admin.usage('acme');
        assert.equal(usage.requests, 1);
        assert.equal(Math.round((1 - usage.wallet) * 1e6), COST);
        assert.deepEqual(await ledgerCost(config), { entries: 1, micros: COST });
      });

      it('frees the slot of a request settled with zero usage (failed before upstream), and bills nothing', async () => {
        const config = store();
        const { policy, admin } = await start(config, { acme: { wallet: 1, limits: { concurrency: 1 } } });
        const first = await policy.admit(request());
        assert.equal((await admin.usage('acme')).inFlight, 1);
        assert.equal((await denial(policy.admit(request()))).kind, 'rate_limited');
        await first.settle({ inputTokens: 0, outputTokens: 0 });
        assert.equal((await admin.usage('acme')).inFlight, 0);
        await (await policy.admit(request())).settle({ inputTokens: 0, outputTokens: 0 });
        assert.deepEqual(await ledgerCost(config), { entries: 0, micros: 0 });
        assert.equal((await admin.usage('acme')).wallet, 1);
      });

      it('answers rate_limited with the real wait until the requests-per-minute window frees', async () => {
        const { policy, clock } = await start(store(), { acme: { wallet: 1, limits: { rpm: 2 } } });
        await (await policy.admit(request())).settle(USAGE);
        clock.advance(20_000);
        await (await policy.admit(request())).settle(USAGE);
        clock.advance(5_500);
        const limited = await denial(policy.admit(request()));
        assert.equal(limited.kind, 'rate_limited');
        // The first admission (second 0) counts until second 61 starts: 35.5 s from now.
        assert.equal(limited.options.retryAfterSeconds, 36);
        clock.advance(35_499);
        assert.equal((await denial(policy.admit(request()))).kind, 'rate_limited');
        clock.advance(1);
        await (await policy.admit(request())).settle(USAGE);
      });

      it('counts actual tokens against tokens per minute once settled', async () => {
        const { policy, clock } = await start(store(), { acme: { wallet: 1, limits: { tpm: 100 } } });
        await (await policy.admit(request())).settle({ inputTokens: 10, outputTokens: 81 });
        clock.advance(1_000);
        const limited = await denial(policy.admit(request())); // 91 used + 10 estimated > 100
        assert.equal(limited.kind, 'rate_limited');
        assert.equal(limited.options.retryAfterSeconds, 60); // second 0's 91 tokens count until second 61 starts
        clock.advance(59_999);
        assert.equal((await denial(policy.admit(request()))).kind, 'rate_limited');
        clock.advance(1);
        await (await policy.admit(request())).settle(USAGE);
      });

      it('draws included tokens first, then the wallet with a payment method, then answers 402', async () => {
        const config = store();
        const { policy, admin } = await start(config, { acme: { wallet: 0.0003, paymentMethod: true, included: { tokens: 25, period: 'month' } } });
        await (await policy.admit(request('included'))).settle(USAGE); // 25 of 30 tokens included, 5 output tokens billed
        let usage = await admin.usage('acme');
        assert.equal(usage.includedRemaining, 0);
        assert.equal(Math.round(usage.wallet * 1e6), 300 - 50);
        // On the wallet now: each admission reserves its worst case, 10 input + 64 output tokens = 665 micro-dollars.
        const short = denial(policy.admit(request('included')));
        assert.equal((await short).kind, 'wallet_empty');
        await admin.topUp('acme', 0.00045); // 700 micro-dollars: one worst case fits
        await (await policy.admit(request('included'))).settle(USAGE);
        usage = await admin.usage('acme');
        assert.equal(Math.round(usage.wallet * 1e6), 700 - COST);
        const empty = await denial(policy.admit(request('included')));
        assert.equal(empty.kind, 'wallet_empty');
        assert.equal(empty.options.recoveryUrl, '/console/billing');
        await admin.topUp('acme', 0.001);
        await (await policy.admit(request('included'))).settle(USAGE);
      });

      it('answers included_allowance_exhausted with the reset instant, and refills there', async () => {
        const { policy, admin, clock } = await start(store(), { acme: { included: { tokens: 30, period: 'day' } } });
        await (await policy.admit(request('included'))).settle(USAGE);
        const exhausted = await denial(policy.admit(request('included')));
        assert.equal(exhausted.kind, 'included_allowance_exhausted');
        assert.equal(exhausted.options.resetAt?.toISOString(), '2026-11-23T00:00:00.000Z');
        clock.time = Date.parse('2026-11-23T00:00:00Z');
        await (await policy.admit(request('included'))).settle(USAGE);
        assert.equal((await admin.usage('acme')).includedRemaining, 0);
      });

      it('keeps the wallet exact in a storm of 200 parallel admissions against credit for about 50', async () => {
        const config = store();
        const { policy, admin } = await start(config, { acme: { wallet: (50 * COST) / 1e6 } });
        // In flight from the call to admit until its settlement is acknowledged: an upper bound of what
        // the store had admitted and not yet charged at any moment.
        let inFlight = 0;
        let maxInFlight = 0;
        const outcomes = await Promise.all(
          Array.from({ length: 200 }, async () => {
            await yieldRandomly(30);
            maxInFlight = Math.max(maxInFlight, ++inFlight);
            let admission: Admission;
            try {
              admission = await policy.admit(request());
            } catch (error) {
              inFlight--;
              return (error as ServiceError).kind;
            }
            await yieldRandomly(10);
            await admission.settle(USAGE);
            inFlight--;
            return 'served';
          }),
        );
        const served = outcomes.filter((o) => o === 'served').length;
        assert.ok(outcomes.every((o) => o === 'served' || o === 'wallet_empty'), outcomes.join());
        const usage = await admin.usage('acme');
        const walletMicros = Math.round(usage.wallet * 1e6);
        // Each admission reserves its worst case (665 µ$) though it costs 225: at least the wallet over the worst case is served,
        // and the wallet never goes below zero (no overdraft configured).
        assert.ok(served >= Math.floor((50 * COST) / WORST_CASE), `served ${served}`);
        assert.ok(walletMicros >= 0, `wallet ${walletMicros} µ$, at most ${maxInFlight} in flight`);
        const ledger = await ledgerCost(config);
        assert.deepEqual(ledger, { entries: served, micros: served * COST });
        assert.equal(50 * COST - walletMicros, ledger.micros, 'the ledger sums exactly to the balance change');
        assert.equal(usage.inFlight, 0, 'no slot leaked');
      });

      it('keeps balances, payment method, created and revoked keys across a restart', async () => {
        const config = store();
        const first = await start(config, { acme: { wallet: 1 } });
        await (await first.policy.admit(request())).settle(USAGE);
        await first.admin.topUp('acme', 2);
        await first.admin.setPaymentMethod('acme', true);
        const { key } = await first.admin.createKey('acme', ['sql']);
        assert.ok(await first.admin.revokeKey(KEY));
        await first.policy.close();
        open.splice(open.indexOf(first.policy), 1);

        // A changed config wallet does not rewrite a balance the store already holds.
        const second = await start(config, { acme: { wallet: 500 } });
        const usage = await second.admin.usage('acme');
        assert.equal(Math.round(usage.wallet * 1e6), 3_000_000 - COST);
        assert.equal(usage.requests, 1);
        assert.equal((await second.keys.resolve(hashKey(KEY)))?.revoked, true);
        assert.deepEqual((await second.keys.resolve(hashKey(key)))?.scopes, ['sql']);
      });
    });
  }

  describe('redis only', () => {
    it('gives a crashed instance\'s slot back once its lease expires', async () => {
      const config = stores[1]!.store();
      const clock = new TestClock();
      const crashed = await start(config, { acme: { wallet: 1, limits: { concurrency: 1 } } }, clock);
      await crashed.policy.admit(request()); // never settled: the instance dies
      const survivor = await start(config, { acme: { wallet: 1, limits: { concurrency: 1 } } }, clock);
      assert.equal((await denial(survivor.policy.admit(request()))).kind, 'rate_limited');
      clock.advance(LEASE_MS + 1);
      await (await survivor.policy.admit(request())).settle(USAGE);
      assert.equal((await survivor.admin.usage('acme')).inFlight, 0);
    });

    it('answers policy_unavailable within the deadline from a hung Redis, and a late admission gives its slot back', async () => {
      const config = stores[1]!.store();
      const { policy, admin } = await start(config, { acme: { wallet: 1, limits: { concurrency: 1 } } });
      redis.pause();
      let refusal: ServiceError;
      const started = performance.now();
      try {
        refusal = await denial(policy.admit(request()));
      } finally {
        redis.resume();
      }
      const elapsed = performance.now() - started;
      assert.equal(refusal.kind, 'policy_unavailable');
      assert.ok(elapsed >= 450 && elapsed < 1_000, `answered after ${elapsed.toFixed(0)} ms with a 500 ms deadline`);
      // The admission ran once Redis woke up; its release followed it on the same connection.
      for (let i = 0; i < 200 && (await admin.usage('acme').catch(() => ({ inFlight: -1 }))).inFlight !== 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
      assert.equal((await admin.usage('acme')).inFlight, 0);
      await (await policy.admit(request())).settle(USAGE);
    });

    it('charges, at the next start, a settlement that waited in the pending file when its process died during an outage', async function () {
      this.timeout(15_000);
      const config = { ...stores[1]!.store(), pendingFile: 'pending.jsonl' } as ConfigInput['store'];
      const { prefix } = config as { prefix: string };
      const child = fork(fileURLToPath(new URL('./pending-child.mjs', import.meta.url)), [dir, redis.url, prefix], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      try {
        await nextMessage(child, 'admitted');
        await redis.stop();
        child.send('settle');
        await nextMessage(child, 'settled');
      } finally {
        child.kill('SIGKILL');
        await redis.restart();
      }
      assert.equal(readFileSync(join(dir, 'pending.jsonl'), 'utf8').split('\n').filter(Boolean).length, 1, 'the settlement was written before it was acknowledged');

      const next = await start(config, { acme: { wallet: 1 } });
      for (let i = 0; i < 300 && (await next.admin.usage('acme')).requests === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      const usage = await next.admin.usage('acme');
      assert.deepEqual([usage.requests, Math.round(usage.wallet * 1e6), usage.inFlight], [1, 1_000_000 - COST, 0]);
      assert.deepEqual(await stores[1]!.ledgerCost(config), { entries: 1, micros: COST });
      await next.policy.close();
      open.splice(open.indexOf(next.policy), 1);

      // The next start finds nothing left to send, and sending it again would change nothing anyway.
      const third = await start(config, { acme: { wallet: 1 } });
      assert.equal(readFileSync(join(dir, 'pending.jsonl'), 'utf8'), '');
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      assert.equal((await third.admin.usage('acme')).requests, 1);
    });

    it('revokes on every instance at once, also keys the revoking instance never saw', async () => {
      const config = stores[1]!.store();
      const a = await start(config, { acme: { wallet: 1 } });
      const b = await start(config, { acme: { wallet: 1 } });
      const { key, keyId } = await a.admin.createKey('acme', ['sql']);
      // Published over pub/sub: the other KeyRing (which the SQL endpoint reads) learns it without a request.
      const revokedAt = async (ring: KeyRing, sha256: string) => {
        for (let i = 0; i < 200 && !ring.find(sha256)?.revoked; i++) await new Promise((resolve) => setTimeout(resolve, 5));
        return ring.find(sha256)?.revoked;
      };
      assert.ok(await b.admin.revokeKey(keyId), 'b revokes a key only a created');
      assert.equal(await revokedAt(a.keys, hashKey(key)), true);
      assert.ok(await a.admin.revokeKey(KEY));
      assert.equal(await revokedAt(b.keys, hashKey(KEY)), true);
      const c = await start(config, { acme: { wallet: 1 } });
      assert.equal(c.keys.find(hashKey(KEY))?.revoked, true, 'an instance started later reads the revocations');
      const configuredKeyId = b.keys.find(hashKey(KEY))!.keyId;
      assert.equal((await denial(b.policy.admit({ ...request(), principal: { ...request().principal, keyId: configuredKeyId } }))).kind, 'unauthorized');
    });
  });
});

function nextMessage(child: ChildProcess, expected: string): Promise<void> {
  return new Promise((resolve, reject) => {
    child.once('message', (message) => (message === expected ? resolve() : reject(new Error(`expected ${expected}, got ${String(message)}`))));
    child.once('exit', (code) => reject(new Error(`child exited with ${code} before ${expected}`)));
  });
}
