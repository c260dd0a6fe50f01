import assert from 'node:assert/strict';
import type { ConfigInput } from '@tollgate/middleware';
import { RedisServer } from '../../support/redis-server.js';
import { chat, denialHeaders, keyOf, message, startPolicyStack, TestClock } from './policy-fixture.js';

const organizations: ConfigInput['organizations'] = {
  limited: { wallet: 100, limits: { rpm: 2, tpm: 10_000 } },
  rpmOnly: { wallet: 100, limits: { rpm: 50 } },
  free: { wallet: 100 },
};

const rateLimitNames = ['limit-requests', 'remaining-requests', 'reset-requests', 'limit-tokens', 'remaining-tokens', 'reset-tokens'].map((name) => `x-ratelimit-${name}`);

function rateLimitHeaders(headers: Headers): Record<string, string | null> {
  return Object.fromEntries(rateLimitNames.map((name) => [name, headers.get(name)]));
}

/** gpt's price (2.5 / 10 USD per million tokens) over the usage the answer reports, rounded up to the micro-dollar. */
function expectedCostUsd(usage: { prompt_tokens: number; completion_tokens: number }): string {
  const pico = usage.prompt_tokens * 2_500_000 + usage.completion_tokens * 10_000_000;
  return (Math.ceil(pico / 1_000_000) / 1_000_000).toFixed(6);
}

for (const storeKind of ['memory', 'redis'] as const) {
  describe(`rate-limit state and cost on successful answers (${storeKind} store)`, () => {
    let redis: RedisServer | undefined;
    let clock: TestClock;
    let stack: Awaited<ReturnType<typeof startPolicyStack>>;
    let run = 0;
    before(async () => {
      if (storeKind === 'redis') redis = await RedisServer.start();
    });
    after(async () => {
      await redis?.close();
    });
    beforeEach(async () => {
      clock = new TestClock();
      const store: ConfigInput['store'] = storeKind === 'memory' ? { kind: 'memory' } : { kind: 'redis', url: redis!.url, prefix: `hdr${++run}:` };
      stack = await startPolicyStack(organizations, { clock, store });
    });
    afterEach(async () => {
      await stack.close();
    });

    it('tells a limited organization its remaining requests and tokens and when the window empties, after known traffic', async () => {
      const first = await chat(stack.gateway.url, 'limited');
      assert.equal(first.status, 200);
      const estimate = 10_000 - Number(first.headers.get('x-ratelimit-remaining-tokens'));
      assert.ok(estimate > 0);
      // Counted at 12:00:00.000: it leaves the 60 s window (plus the current second) 61 s later.
      assert.deepEqual(rateLimitHeaders(first.headers), {
        'x-ratelimit-limit-requests': '2',
        'x-ratelimit-remaining-requests': '1',
        'x-ratelimit-reset-requests': '1m1s',
        'x-ratelimit-limit-tokens': '10000',
        'x-ratelimit-remaining-tokens': String(10_000 - estimate),
        'x-ratelimit-reset-tokens': '1m1s',
      });

      clock.advance(20_500);
      const second = await chat(stack.gateway.url, 'limited');
      const used = first.body.usage.prompt_tokens + first.body.usage.completion_tokens;
      // The first request now counts what it really used (settled), the second its estimate.
      assert.deepEqual(rateLimitHeaders(second.headers), {
        'x-ratelimit-limit-requests': '2',
        'x-ratelimit-remaining-requests': '0',
        'x-ratelimit-reset-requests': '1m0.5s',
        'x-ratelimit-limit-tokens': '10000',
        'x-ratelimit-remaining-tokens': String(10_000 - used - estimate),
        'x-ratelimit-reset-tokens': '1m0.5s',
      });
    });

    it('sends only the requests trio when only requests are limited, and none without limits', async () => {
      const rpmOnly = await chat(stack.gateway.url, 'rpmOnly');
      assert.equal(rpmOnly.headers.get('x-ratelimit-remaining-requests'), '49');
      assert.equal(rpmOnly.headers.get('x-ratelimit-limit-tokens'), null);
      const free = await chat(stack.gateway.url, 'free');
      assert.equal(free.status, 200);
      for (const name of rateLimitNames) assert.equal(free.headers.get(name), null, name);
    });

    it('tells the settled cost of a JSON answer in X-Service-Cost-Usd, equal to what the wallet lost', async () => {
      const answer = await chat(stack.gateway.url, 'free');
      const cost = answer.headers.get('x-service-cost-usd');
      assert.equal(cost, expectedCostUsd(answer.body.usage));
      const usage = await stack.gateway.gate.admin.usage('free');
      assert.equal(usage.costUsd.toFixed(6), cost);
      assert.equal(usage.wallet, (100_000_000 - Math.round(Number(cost) * 1_000_000)) / 1_000_000);
    });

    it('sends the rate-limit headers at the start of a stream, and no cost (the stream’s headers go before its usage is known)', async () => {
      const response = await fetch(`${stack.gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${keyOf('limited')}` },
        body: JSON.stringify({ model: 'gpt', stream: true, messages: [{ role: 'user', content: 'one two three' }] }),
      });
      assert.equal(response.headers.get('x-ratelimit-remaining-requests'), '1');
      assert.equal(response.headers.get('x-ratelimit-reset-requests'), '1m1s');
      assert.equal(response.headers.get('x-service-cost-usd'), null);
      await response.text();
    });

    it('keeps /v1/messages errors free of every header but tells its successes their limits', async () => {
      const ok = await message(stack.gateway.url, 'limited');
      assert.equal(ok.status, 200);
      assert.equal(ok.headers.get('x-ratelimit-remaining-requests'), '1');
      assert.ok(ok.headers.get('x-service-cost-usd'));
      await message(stack.gateway.url, 'limited');
      const refused = await message(stack.gateway.url, 'limited');
      assert.equal(refused.status, 429);
      assert.deepEqual(denialHeaders(refused.headers), { reason: null, retryAfter: null, resetAt: null, recoveryUrl: null });
      for (const name of [...rateLimitNames, 'x-service-cost-usd']) assert.equal(refused.headers.get(name), null, name);
      // The chat family's refusal has no success headers either (its §7.2 headers are its own business).
      const chatRefused = await chat(stack.gateway.url, 'limited');
      assert.equal(chatRefused.status, 429);
      for (const name of [...rateLimitNames, 'x-service-cost-usd']) assert.equal(chatRefused.headers.get(name), null, name);
    });
  });
}
