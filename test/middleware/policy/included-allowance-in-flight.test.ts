import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { ConfigInput } from '@tollgate/middleware';
import { hashKey, KeyRing } from '../../../packages/middleware/src/auth/index.js';
import { longestRequestMs, parseConfig } from '../../../packages/middleware/src/config/index.js';
import { ServiceError } from '../../../packages/middleware/src/errors/index.js';
import type { AdmissionRequest } from '../../../packages/middleware/src/policy/index.js';
import { createPolicy } from '../../../packages/middleware/src/store/index.js';
import { estimateInputTokens } from '../../../packages/middleware/src/tokenize/index.js';
import { startFakeOpenAI } from '../../fakes/index.js';
import { RedisServer } from '../../support/redis-server.js';
import { startGateway, type RunningGateway } from '../../support/gateway.js';
import { TestClock } from './policy-fixture.js';

/** A lease lives a minute longer than the longest request (default relay: 30 minutes for an attempt). */
const LEASE_MS = longestRequestMs({ attemptDeadlineMs: 1_800_000 });

const KEY = 'tg-hunt-acme-key-0123456789abcdefXYZ';

/**
 * README "Reservations": an included model reserves nothing while the allowance has tokens left, and with a
 * payment method each included request in flight claims its worst case in tokens of what is neither used nor
 * claimed, so only the one request that crosses the allowance line can overdraw the wallet, by its overflow.
 * Requests in flight together used to all see tokens left, all reserve nothing, and all overflow.
 */
describe('included allowance: requests in flight claim it, so one request at most crosses the line', function () {
  this.timeout(30_000);
  let redis: RedisServer;
  const closers: (() => Promise<void>)[] = [];

  before(async () => {
    redis = await RedisServer.start();
  });
  after(() => redis.close());
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  const prefix = () => `inc${Math.random().toString(36).slice(2)}:`;
  const scenarios: { name: string; instances: number; store: () => ConfigInput['store'] }[] = [
    { name: 'memory store', instances: 1, store: () => ({ kind: 'memory' }) },
    { name: 'Redis store', instances: 1, store: () => ({ kind: 'redis', url: redis.url, prefix: prefix() }) },
    { name: 'two instances sharing Redis', instances: 2, store: () => ({ kind: 'redis', url: redis.url, prefix: prefix() }) },
  ];

  describe('through the gateway (one word is one token in the fake; 1 USD per output token, input free)', () => {
    // 'one two three' is 3 input tokens to the fake; its worst case is the tokenizer's estimate plus max_tokens.
    const body = { model: 'inc', max_tokens: 20, messages: [{ role: 'user', content: 'one two three' }] };
    const worstTokens = estimateInputTokens(body) + 20;

    async function startGateways(count: number, store: ConfigInput['store'], acme: NonNullable<ConfigInput['organizations']>[string], reply: string) {
      const openai = await startFakeOpenAI();
      closers.push(() => openai.close());
      openai.reply({ text: reply });
      const config: ConfigInput = {
        defaultCatalog: false,
        keys: [{ key: KEY, org: 'acme' }],
        organizations: { acme },
        providers: { openai: { kind: 'openai', baseUrl: openai.baseUrl, apiKey: 'sk-fake-openai', retryBaseMs: 1 } },
        models: { inc: { routes: [{ provider: 'openai', model: 'gpt-4o' }], billing: 'included', price: { input: 0, output: 1_000_000 } } },
        store,
        policyTimeoutMs: 2_000,
      };
      const gateways: RunningGateway[] = [];
      for (let i = 0; i < count; i++) {
        const baseDir = mkdtempSync(join(tmpdir(), 'tollgate-included-'));
        const gateway = await startGateway(config, { baseDir });
        closers.push(async () => {
          await gateway.close();
          rmSync(baseDir, { recursive: true, force: true });
        });
        gateways.push(gateway);
      }
      return { gateways, openai };
    }

    const call = (url: string) =>
      fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, body: JSON.stringify(body) })
        .then(async (response) => ({ status: response.status, reason: response.headers.get('x-service-reason'), body: (await response.json()) as { error?: { code?: string } } }));

    /** Ten requests at once, spread over the instances, all in flight together (the fake holds each answer). */
    async function tenAtOnce(gateways: RunningGateway[]) {
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => call(gateways[i % gateways.length]!.url)));
      const served = results.filter((r) => r.status === 200).length;
      const refused = results.filter((r) => r.status === 402 && r.reason === 'wallet_empty' && r.body.error?.code === 'wallet_empty').length;
      return { served, refused, statuses: results.map((r) => r.status) };
    }

    for (const scenario of scenarios) {
      it(`of ten concurrent 20-token requests against a 10-token allowance and a 1 USD wallet, serves only the one that crosses the line: the wallet ends at 1 − 13 (${scenario.name})`, async () => {
        const reply = Array.from({ length: 20 }, (_, i) => `w${i}`).join(' ');
        const { gateways, openai } = await startGateways(scenario.instances, scenario.store(), { wallet: 1, overdraft: 0, paymentMethod: true, included: { tokens: 10, period: 'month' } }, reply);
        openai.delay(400);
        const { served, refused, statuses } = await tenAtOnce(gateways);
        // The first admitted claims all 10 tokens (its worst case is more); the others find none unclaimed and
        // cannot reserve their 20 USD worst case from a 1 USD wallet.
        assert.deepEqual([served, refused], [1, 9], `statuses ${statuses}`);
        const usage = await gateways[0]!.gate.admin.usage('acme');
        // 3 input + 20 output: the allowance covers the 3 input and 7 output tokens, the other 13 cost 13 USD.
        assert.equal(usage.wallet, 1 - 13);
        assert.deepEqual([usage.requests, usage.inputTokens, usage.outputTokens, usage.includedRemaining, usage.inFlight], [1, 3, 20, 0, 0]);
        // Used up: an included request now reserves like a wallet model, and the wallet is below zero.
        openai.delay(0);
        const after = await call(gateways.at(-1)!.url);
        assert.deepEqual([after.status, after.reason], [402, 'wallet_empty']);
      });

      it(`releases the claims at settlement: a later burst finds the allowance left unclaimed again, and a single request reserves nothing (${scenario.name})`, async () => {
        const { gateways, openai } = await startGateways(scenario.instances, scenario.store(), { wallet: 0, overdraft: 0, paymentMethod: true, included: { tokens: 100, period: 'month' } }, 'a b c d e');
        openai.delay(400);
        // Each claims its worst case of what is left; the last claims the rest. An empty wallet refuses the others.
        const first = await tenAtOnce(gateways);
        const admittedFirst = Math.ceil(100 / worstTokens);
        assert.deepEqual([first.served, first.refused], [admittedFirst, 10 - admittedFirst], `statuses ${first.statuses}`);
        let usage = await gateways[0]!.gate.admin.usage('acme');
        // Each used 3 + 5 = 8 tokens, all within the allowance: nothing charged.
        assert.deepEqual([usage.wallet, usage.requests, usage.includedRemaining, usage.inFlight], [0, admittedFirst, 100 - 8 * admittedFirst, 0]);

        // A claim that leaked would leave nothing unclaimed: this one would then need 20 USD from an empty wallet.
        openai.delay(0);
        assert.equal((await call(gateways.at(-1)!.url)).status, 200);
        const left = 100 - 8 * (admittedFirst + 1);
        usage = await gateways[0]!.gate.admin.usage('acme');
        assert.deepEqual([usage.wallet, usage.includedRemaining, usage.inFlight], [0, left, 0]);

        openai.delay(400);
        const second = await tenAtOnce(gateways);
        const admittedSecond = Math.ceil(left / worstTokens);
        assert.deepEqual([second.served, second.refused], [admittedSecond, 10 - admittedSecond], `statuses ${second.statuses}`);
        usage = await gateways[0]!.gate.admin.usage('acme');
        assert.deepEqual([usage.wallet, usage.includedRemaining, usage.inFlight], [0, left - 8 * admittedSecond, 0]);
      });
    }

    it('an included model\'s prompt counts in its claim even when input is free and no tokens-per-minute limit needs its estimate (memory store)', async () => {
      // Worst case 9 + 20 = 29 > 25 tokens: the first claims the whole allowance. Had the prompt not been
      // estimated (worst case 20), the second would have claimed the other 5 and overflowed by 18 USD unreserved.
      assert.ok(worstTokens > 25, `worst case ${worstTokens}`);
      const { gateways, openai } = await startGateways(1, { kind: 'memory' }, { wallet: 0, overdraft: 0, paymentMethod: true, included: { tokens: 25, period: 'month' } }, Array.from({ length: 20 }, (_, i) => `w${i}`).join(' '));
      openai.delay(400);
      const results = await Promise.all([call(gateways[0]!.url), call(gateways[0]!.url)]);
      assert.deepEqual(results.map((r) => r.status).sort(), [200, 402]);
      const usage = await gateways[0]!.gate.admin.usage('acme');
      // 3 + 20 = 23 tokens, within the allowance: the wallet is untouched.
      assert.deepEqual([usage.wallet, usage.includedRemaining, usage.inFlight], [0, 2, 0]);
    });
  });

  describe('at the policy (claims by hand: each request\'s worst case is 10 + 40 = 50 tokens, 40 USD)', () => {
    const key = 'tg-included-claim-key-0123456789abcdef';
    const request: AdmissionRequest = { principal: { keyId: 'config-0-' + hashKey(key).slice(0, 8), org: 'acme', scopes: ['models'] }, alias: 'inc', billing: 'included', price: { input: 0, output: 1_000_000 }, estimatedInputTokens: 10, maxOutputTokens: 40 };
    const stores: { name: string; store: () => ConfigInput['store'] }[] = [
      { name: 'memory store', store: () => ({ kind: 'memory' }) },
      { name: 'Redis store', store: () => ({ kind: 'redis', url: redis.url, prefix: prefix() }) },
    ];

    async function open(store: ConfigInput['store'], acme: NonNullable<ConfigInput['organizations']>[string], clock = new TestClock()) {
      const { config } = parseConfig({ keys: [{ key, org: 'acme' }], organizations: { acme }, store, policyTimeoutMs: 2_000 }, {});
      const baseDir = mkdtempSync(join(tmpdir(), 'tollgate-included-claim-'));
      closers.push(async () => rmSync(baseDir, { recursive: true, force: true }));
      const { policy, admin } = await createPolicy({ config, keys: KeyRing.fromConfig(config.keys), clock, baseDir });
      closers.push(() => policy.close());
      return { policy, admin, clock };
    }

    const refusal = (promise: Promise<unknown>) => promise.then(() => 'admitted', (error: unknown) => (error instanceof ServiceError ? error.kind : error));

    for (const { name, store } of stores) {
      it(`a request admitted within the allowance releases its claim at settlement, and the one that crosses the line overdraws by its overflow only (${name})`, async () => {
        const { policy, admin } = await open(store(), { wallet: 0, paymentMethod: true, included: { tokens: 100, period: 'month' } });
        const a = await policy.admit(request); // claims 50
        const b = await policy.admit(request); // claims the other 50
        assert.equal(await refusal(policy.admit(request)), 'wallet_empty', 'all 100 tokens are claimed and the wallet cannot hold 40 USD');
        assert.equal(await a.settle({ inputTokens: 10, outputTokens: 5 }), 0);
        // A's 15 tokens are used and its claim is released: 100 − 15 − 50 = 35 tokens are left unclaimed.
        const c = await policy.admit(request); // claims the 35: its worst case crosses the line
        assert.equal(await refusal(policy.admit(request)), 'wallet_empty');
        assert.equal(await b.settle({ inputTokens: 10, outputTokens: 40 }), 0);
        // C uses its whole worst case: 35 tokens from the allowance (10 input, 25 output), 15 output tokens over it.
        assert.equal(await c.settle({ inputTokens: 10, outputTokens: 40 }), 15_000_000);
        const usage = await admin.usage('acme');
        assert.deepEqual([usage.wallet, usage.includedRemaining, usage.inFlight, usage.requests], [-15, 0, 0, 3]);
      });

      it(`once what is left is all claimed, the next request reserves its worst case from the wallet (${name})`, async () => {
        const { policy, admin } = await open(store(), { wallet: 40, paymentMethod: true, included: { tokens: 100, period: 'month' } });
        const claimed = [await policy.admit(request), await policy.admit(request)];
        const reserved = await policy.admit(request); // reserves 40 USD: all the wallet holds
        assert.equal(await refusal(policy.admit(request)), 'wallet_empty');
        // Nothing used yet: a settlement of nothing releases the reservation, and the claims stay.
        assert.equal(await reserved.settle({ inputTokens: 0, outputTokens: 0 }), 0);
        const again = await policy.admit(request);
        assert.equal(await refusal(policy.admit(request)), 'wallet_empty');
        for (const admission of [...claimed, again]) await admission.settle({ inputTokens: 10, outputTokens: 40 });
        // 150 tokens: 100 from the allowance, 50 over it (10 free input, 40 output at 1 USD).
        const usage = await admin.usage('acme');
        assert.deepEqual([usage.wallet, usage.includedRemaining, usage.inFlight], [0, 0, 0]);
      });

      it(`without a payment method nothing is claimed: requests are admitted while tokens are left, and the overflow is not charged (${name})`, async () => {
        const { policy, admin } = await open(store(), { wallet: 0, included: { tokens: 100, period: 'month' } });
        const admissions = [];
        for (let i = 0; i < 5; i++) admissions.push(await policy.admit(request));
        for (const admission of admissions) assert.equal(await admission.settle({ inputTokens: 10, outputTokens: 40 }), 0);
        const usage = await admin.usage('acme');
        assert.deepEqual([usage.wallet, usage.includedRemaining, usage.inFlight], [0, 0, 0]);
        assert.equal(await refusal(policy.admit(request)), 'included_allowance_exhausted');
      });
    }

    it('a lease that lapses unsettled releases its claim once (an instance that died mid-request), in Redis', async () => {
      const prefixed = prefix();
      const { policy, admin, clock } = await open({ kind: 'redis', url: redis.url, prefix: prefixed }, { wallet: 0, paymentMethod: true, included: { tokens: 100, period: 'month' } });
      const lost = [await policy.admit(request), await policy.admit(request)]; // never settled in time: their instance "died"
      assert.equal(await refusal(policy.admit(request)), 'wallet_empty');
      clock.advance(LEASE_MS + 1); // past the leases
      const fresh = [await policy.admit(request), await policy.admit(request)]; // the lapsed claims are free again
      assert.equal(await refusal(policy.admit(request)), 'wallet_empty');
      const client = new Redis(redis.url);
      try {
        const bal = `${prefixed}{acme}:bal`;
        const reservations = `${prefixed}{acme}:reservations`;
        assert.equal(await client.hget(bal, 'incClaimed'), '100');
        assert.equal(await client.hlen(reservations), 2, 'only the fresh admissions hold claims');
        // The lapsed leases still settle (and charge) once, without releasing their claims a second time.
        for (const admission of [...lost, ...fresh]) await admission.settle({ inputTokens: 10, outputTokens: 5 });
        assert.equal(await client.hget(bal, 'incClaimed'), '0');
        assert.equal(await client.hlen(reservations), 0);
      } finally {
        client.disconnect();
      }
      const usage = await admin.usage('acme');
      assert.deepEqual([usage.wallet, usage.includedRemaining, usage.inFlight, usage.requests], [0, 40, 0, 4]);
    });
  });
});
