import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConfigInput } from '@tollgate/middleware';
import { hashKey, KeyRing } from '../../../packages/middleware/src/auth/index.js';
import { longestRequestMs, parseConfig } from '../../../packages/middleware/src/config/index.js';
import { type AdmissionRequest } from '../../../packages/middleware/src/policy/index.js';
import { createPolicy } from '../../../packages/middleware/src/store/index.js';
import { ServiceError } from '../../../packages/middleware/src/errors/index.js';
import { startFakeOpenAI } from '../../fakes/index.js';
import { RedisServer } from '../../support/redis-server.js';
import { startGateway, type RunningGateway } from '../../support/gateway.js';
import { keyOf, TestClock } from './policy-fixture.js';

/** A lease lives a minute longer than the longest request (default relay: 30 minutes for an attempt). */
const LEASE_MS = longestRequestMs({ attemptDeadlineMs: 1_800_000 });

/**
 * Reservations (README "Reservations"): admission reserves each request's worst case against the wallet
 * plus the overdraft, so concurrent requests cannot spend what is not there.
 */
describe('reservations: a wallet never ends below −overdraft', function () {
  let redis: RedisServer;
  const closers: (() => Promise<void>)[] = [];

  before(async () => {
    redis = await RedisServer.start();
  });
  after(() => redis.close());
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  /** One output token at 1,000,000 USD per million: every request's worst case, and its cost, is 1 USD. */
  async function startGateways(count: number, store: ConfigInput['store']): Promise<{ gateways: RunningGateway[]; delay(ms: number): void }> {
    const openai = await startFakeOpenAI();
    closers.push(() => openai.close());
    const config: ConfigInput = {
      defaultCatalog: false,
      keys: [{ key: keyOf('acme'), org: 'acme' }],
      organizations: { acme: { wallet: 0.000001, overdraft: 3 } },
      providers: { openai: { kind: 'openai', baseUrl: openai.baseUrl, apiKey: 'sk-fake-openai', retryBaseMs: 1 } },
      models: { dollar: { routes: [{ provider: 'openai', model: 'gpt-4o' }], price: { input: 0, output: 1_000_000 } } },
      store,
      policyTimeoutMs: 2_000,
    };
    const gateways: RunningGateway[] = [];
    for (let i = 0; i < count; i++) {
      const baseDir = mkdtempSync(join(tmpdir(), 'tollgate-reservations-'));
      const gateway = await startGateway(config, { baseDir });
      closers.push(async () => {
        await gateway.close();
        rmSync(baseDir, { recursive: true, force: true });
      });
      gateways.push(gateway);
    }
    return { gateways, delay: (ms) => openai.delay(ms) };
  }

  const dollarCall = (url: string) =>
    fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${keyOf('acme')}` },
      body: JSON.stringify({ model: 'dollar', max_tokens: 1, messages: [{ role: 'user', content: 'one two three' }] }),
    }).then(async (response) => ({ status: response.status, reason: response.headers.get('x-service-reason'), body: (await response.json()) as { error?: { code?: string } } }));

  async function fiftyAtOnce(gateways: RunningGateway[]) {
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => dollarCall(gateways[i % gateways.length]!.url)));
    const usage = await gateways[0]!.gate.admin.usage('acme');
    return { results, usage };
  }

  const scenarios: { name: string; instances: number; store: () => ConfigInput['store'] }[] = [
    { name: 'memory store', instances: 1, store: () => ({ kind: 'memory' }) },
    { name: 'Redis store', instances: 1, store: () => ({ kind: 'redis', url: redis.url, prefix: `r${Math.random().toString(36).slice(2)}:` }) },
    { name: 'two instances sharing Redis', instances: 2, store: () => ({ kind: 'redis', url: redis.url, prefix: `r${Math.random().toString(36).slice(2)}:` }) },
  ];
  for (const scenario of scenarios) {
    it(`admits 3 of 50 concurrent 1-USD requests against a 0.000001 USD wallet with a 3 USD overdraft, ending at −2.999999 (${scenario.name})`, async () => {
      const { gateways, delay } = await startGateways(scenario.instances, scenario.store());
      delay(150); // all 50 are in flight together
      const { results, usage } = await fiftyAtOnce(gateways);
      const served = results.filter((r) => r.status === 200);
      const refused = results.filter((r) => r.status === 402);
      assert.equal(served.length, 3);
      assert.equal(refused.length, 47);
      assert.ok(refused.every((r) => r.reason === 'wallet_empty' && r.body.error?.code === 'wallet_empty'));
      assert.equal(usage.wallet, -2.999999);
      assert.equal(usage.requests, 3);
      assert.equal(usage.inFlight, 0);
      // Settled: nothing stays reserved, so a top-up of 1 USD admits exactly one more.
      await gateways[0]!.gate.admin.topUp('acme', 1);
      assert.equal((await dollarCall(gateways.at(-1)!.url)).status, 200);
      assert.equal((await dollarCall(gateways[0]!.url)).status, 402);
    });
  }

  it('releases the reservation of a lease that expired unsettled (an instance that died mid-request), in Redis', async () => {
    const clock = new TestClock();
    const key = 'tg-reservation-lease-key-0123456789abcdef';
    const { config } = parseConfig({ keys: [{ key, org: 'acme' }], organizations: { acme: { wallet: 1 } }, store: { kind: 'redis', url: redis.url, prefix: `l${Math.random().toString(36).slice(2)}:` }, policyTimeoutMs: 2_000 }, {});
    // A directory of its own: with tmpdir() the ledger export shared /tmp/data/ledger (871 MB by now) with every other run.
    const baseDir = mkdtempSync(join(tmpdir(), 'tollgate-lease-'));
    closers.push(async () => rmSync(baseDir, { recursive: true, force: true }));
    const { policy } = await createPolicy({ config, keys: KeyRing.fromConfig(config.keys), clock, baseDir });
    closers.push(() => policy.close());
    const request: AdmissionRequest = { principal: { keyId: 'config-0-' + hashKey(key).slice(0, 8), org: 'acme', scopes: ['models'] }, alias: 'dollar', billing: 'wallet', price: { input: 0, output: 1_000_000 }, estimatedInputTokens: 0, maxOutputTokens: 1 };
    await policy.admit(request); // never settled: its instance "died"
    const refused = await policy.admit(request).catch((error: unknown) => error);
    assert.ok(refused instanceof ServiceError && refused.kind === 'wallet_empty');
    clock.advance(LEASE_MS + 1); // past the lease
    const admission = await policy.admit(request);
    await admission.settle({ inputTokens: 0, outputTokens: 1 });
  });
});
