import assert from 'node:assert/strict';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { TestClock, chat, denialHeaders, keyOf, message, startPolicyStack } from './policy-fixture.js';

// The fakes count one token per word: 'one two three' is 3 input tokens, 'Echo: one two three' 4 output tokens.
// At USD 2.5/M input and 10/M output that is 7.5 + 40 = 47.5 micro-dollars, billed as 48.
const ONE_CALL_USD = 0.000048;

describe('money and limits (contract §7.1, §7.2, §8)', () => {
  let stack: Awaited<ReturnType<typeof startPolicyStack>>;
  let clock: TestClock;
  afterEach(() => stack.close());

  const start = async (organizations: Parameters<typeof startPolicyStack>[0]) => {
    clock = new TestClock();
    stack = await startPolicyStack(organizations, { clock });
  };

  describe('wallet', () => {
    it('bills the provider-reported usage exactly, in integer micro-dollars', async () => {
      await start({ acme: { wallet: 10 } });
      assert.equal((await chat(stack.gateway.url, 'acme')).status, 200);
      const { keys, ...usage } = await stack.gateway.gate.admin.usage('acme');
      assert.deepEqual(usage, { wallet: 10 - ONE_CALL_USD, paymentMethod: false, includedRemaining: 0, resetAt: null, requests: 1, inputTokens: 3, outputTokens: 4, cachedInputTokens: 0, cacheWriteTokens: 0, costUsd: ONE_CALL_USD, inFlight: 0 });
      assert.deepEqual(Object.values(keys ?? {}), [{ requests: 1, inputTokens: 3, outputTokens: 4, costUsd: ONE_CALL_USD, budgetRemaining: null, budgetResetAt: null, inFlight: 0 }]);
    });

    it('answers 402 wallet_empty with X-Service-Reason and X-Service-Recovery-Url, and no Retry-After', async () => {
      await start({ broke: { wallet: 0 } });
      const response = await chat(stack.gateway.url, 'broke');
      assert.equal(response.status, 402);
      assert.equal(response.body.error.code, 'wallet_empty');
      assert.deepEqual(denialHeaders(response.headers), { reason: 'wallet_empty', retryAfter: null, resetAt: null, recoveryUrl: '/console/billing' });
      assert.equal(stack.openai.requests.length, 0, 'nothing reached upstream');
    });

    it('answers 402 on /v1/messages in the Anthropic envelope with none of the denial headers', async () => {
      await start({ broke: { wallet: 0 } });
      const response = await message(stack.gateway.url, 'broke');
      assert.equal(response.status, 402);
      assert.deepEqual(response.body, { type: 'error', error: { type: 'billing_error', message: response.body.error.message } });
      assert.deepEqual(denialHeaders(response.headers), { reason: null, retryAfter: null, resetAt: null, recoveryUrl: null });
      const sdkError = await new Anthropic({ baseURL: stack.gateway.url, apiKey: keyOf('broke'), maxRetries: 0 }).messages.create({ model: 'gpt', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
      assert.ok(sdkError instanceof Anthropic.APIError && sdkError.status === 402);
    });

    it('refuses a request whose worst-case cost the wallet cannot cover, nothing charged, until a top-up', async () => {
      await start({ acme: { wallet: 0.00001 } });
      // Default output budget 4,096 tokens at 10 USD per million: about 0.04 USD reserved, more than the wallet.
      const refused = await chat(stack.gateway.url, 'acme');
      assert.equal(refused.status, 402);
      assert.equal(refused.body.error.code, 'wallet_empty');
      assert.equal((await stack.gateway.gate.admin.usage('acme')).wallet, 0.00001);
      await stack.gateway.gate.admin.topUp('acme', 1);
      assert.equal((await chat(stack.gateway.url, 'acme')).status, 200);
    });

    it('bills a retried upstream attempt once', async () => {
      await start({ acme: { wallet: 10 } });
      stack.openai.failNext({ status: 529, times: 1 });
      assert.equal((await chat(stack.gateway.url, 'acme')).status, 200);
      assert.equal(stack.openai.requests.length, 2);
      const usage = await stack.gateway.gate.admin.usage('acme');
      assert.deepEqual([usage.requests, usage.costUsd], [1, ONE_CALL_USD]);
    });

    it('bills nothing for a request the provider rejected', async () => {
      await start({ acme: { wallet: 10 } });
      stack.openai.failNext({ status: 400 });
      assert.equal((await chat(stack.gateway.url, 'acme')).status, 400);
      const usage = await stack.gateway.gate.admin.usage('acme');
      assert.deepEqual([usage.requests, usage.wallet, usage.inFlight], [0, 10, 0]);
    });

    it('bills stream usage reported by the provider without showing the client a usage chunk', async () => {
      await start({ acme: { wallet: 10 } });
      const response = await chat(stack.gateway.url, 'acme', { stream: true });
      assert.doesNotMatch(response.text, /"usage"/);
      assert.equal((stack.openai.requests[0]!.body as { stream_options: { include_usage: boolean } }).stream_options.include_usage, true);
      const usage = await stack.gateway.gate.admin.usage('acme');
      assert.deepEqual([usage.inputTokens, usage.outputTokens, usage.costUsd], [3, 4, ONE_CALL_USD]);
    });

    it('bills the partial output of a stream that broke, and frees its slot', async () => {
      await start({ acme: { wallet: 10 } });
      stack.openai.reply({ text: Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ') });
      stack.openai.dropAfterChunks(6);
      const response = await chat(stack.gateway.url, 'acme', { stream: true }).catch(() => undefined);
      assert.ok(response === undefined || response.status === 200);
      await waitFor(async () => (await stack.gateway.gate.admin.usage('acme')).requests === 1);
      const usage = await stack.gateway.gate.admin.usage('acme');
      assert.ok(usage.outputTokens > 0 && usage.outputTokens < 40, `partial output billed: ${usage.outputTokens}`);
      assert.equal(usage.inFlight, 0);
    });

    it('bills what was produced when the client disconnects mid-stream, aborting upstream', async () => {
      await start({ acme: { wallet: 10 } });
      stack.openai.reply({ text: Array.from({ length: 200 }, (_, i) => `w${i}`).join(' ') });
      const controller = new AbortController();
      const response = await fetch(`${stack.gateway.url}/v1/chat/completions`, {
        method: 'POST',
        signal: controller.signal,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${keyOf('acme')}` },
        body: JSON.stringify({ model: 'gpt', stream: true, messages: [{ role: 'user', content: 'long please' }] }),
      });
      const reader = response.body!.getReader();
      await reader.read();
      controller.abort();
      await waitFor(async () => (await stack.gateway.gate.admin.usage('acme')).inFlight === 0);
      assert.equal((await stack.gateway.gate.admin.usage('acme')).requests, 1);
    });
  });

  describe('rate limits', () => {
    it('answers 429 rate_limited past the requests-per-minute limit, with Retry-After the real wait', async () => {
      await start({ acme: { wallet: 10, limits: { rpm: 2 } } });
      assert.equal((await chat(stack.gateway.url, 'acme')).status, 200);
      clock.advance(20_000);
      assert.equal((await chat(stack.gateway.url, 'acme')).status, 200);
      clock.advance(15_000);
      const limited = await chat(stack.gateway.url, 'acme');
      assert.equal(limited.status, 429);
      assert.equal(limited.body.error.code, 'rate_limited');
      // The first request (second 0) counts until second 61 starts, 26 s from now (README "Rate limits: the promise").
      assert.deepEqual(denialHeaders(limited.headers), { reason: 'rate_limited', retryAfter: '26', resetAt: null, recoveryUrl: null });
      clock.advance(25_999);
      assert.equal((await chat(stack.gateway.url, 'acme')).status, 429);
      clock.advance(1);
      assert.equal((await chat(stack.gateway.url, 'acme')).status, 200);
    });

    it('surfaces as the OpenAI SDK RateLimitError with the headers intact', async () => {
      await start({ acme: { wallet: 10, limits: { rpm: 1 } } });
      const openai = new OpenAI({ baseURL: `${stack.gateway.url}/v1`, apiKey: keyOf('acme'), maxRetries: 0 });
      await openai.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }] });
      const error = await openai.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
      assert.ok(error instanceof OpenAI.RateLimitError);
      assert.equal(error.code, 'rate_limited');
      assert.equal(error.headers?.get('retry-after'), '61');
    });

    it('answers 429 past the tokens-per-minute limit, counting actual tokens once settled', async () => {
      await start({ acme: { wallet: 10, limits: { tpm: 10 } } });
      assert.equal((await chat(stack.gateway.url, 'acme')).status, 200); // 3 + 4 = 7 tokens in the window
      const limited = await chat(stack.gateway.url, 'acme', { messages: [{ role: 'user', content: 'several more words here to push past it' }] });
      assert.equal(limited.status, 429);
      assert.equal(limited.headers.get('retry-after'), '61');
      clock.advance(60_999);
      assert.equal((await chat(stack.gateway.url, 'acme', { messages: [{ role: 'user', content: 'several more words here to push past it' }] })).status, 429);
      clock.advance(1);
      assert.equal((await chat(stack.gateway.url, 'acme')).status, 200);
    });

    it('answers 429 past the concurrency limit and frees the slot when the request ends', async () => {
      await start({ acme: { wallet: 10, limits: { concurrency: 1 } } });
      stack.openai.delay(300);
      const slow = chat(stack.gateway.url, 'acme');
      await waitFor(async () => stack.openai.requests.length === 1);
      const limited = await chat(stack.gateway.url, 'acme');
      assert.equal(limited.status, 429);
      assert.equal(limited.headers.get('retry-after'), '1');
      assert.equal((await stack.gateway.gate.admin.usage('acme')).inFlight, 1);
      assert.equal((await slow).status, 200);
      assert.equal((await stack.gateway.gate.admin.usage('acme')).inFlight, 0);
    });

    it('frees the slot of a request that failed anywhere after admission', async () => {
      await start({ acme: { wallet: 10, limits: { concurrency: 1 } } });
      await stack.openai.refuseConnections();
      assert.equal((await chat(stack.gateway.url, 'acme')).status, 502);
      assert.equal((await stack.gateway.gate.admin.usage('acme')).inFlight, 0);
    });

    it('answers 429 on /v1/messages in the Anthropic envelope without Retry-After', async () => {
      await start({ acme: { wallet: 10, limits: { rpm: 1 } } });
      assert.equal((await message(stack.gateway.url, 'acme')).status, 200);
      const limited = await message(stack.gateway.url, 'acme');
      assert.equal(limited.status, 429);
      assert.deepEqual(limited.body.error.type, 'rate_limit_error');
      assert.deepEqual(denialHeaders(limited.headers), { reason: null, retryAfter: null, resetAt: null, recoveryUrl: null });
    });
  });

  describe('included allowance', () => {
    it('answers 429 included_allowance_exhausted with X-Service-Reset-At and no Retry-After once tokens run out', async () => {
      await start({ acme: { wallet: 0, included: { tokens: 5, period: 'month' } } });
      assert.equal((await chat(stack.gateway.url, 'acme', { model: 'gpt-included' })).status, 200);
      const usage = await stack.gateway.gate.admin.usage('acme');
      assert.deepEqual([usage.includedRemaining, usage.costUsd, usage.resetAt], [0, 0, '2026-12-01T00:00:00.000Z']);
      const exhausted = await chat(stack.gateway.url, 'acme', { model: 'gpt-included' });
      assert.equal(exhausted.status, 429);
      assert.equal(exhausted.body.error.code, 'included_allowance_exhausted');
      assert.deepEqual(denialHeaders(exhausted.headers), { reason: 'included_allowance_exhausted', retryAfter: null, resetAt: '2026-12-01T00:00:00.000Z', recoveryUrl: null });
    });

    it('refills at the reset instant', async () => {
      await start({ acme: { wallet: 0, included: { tokens: 5, period: 'day' } } });
      await chat(stack.gateway.url, 'acme', { model: 'gpt-included' });
      assert.equal((await chat(stack.gateway.url, 'acme', { model: 'gpt-included' })).status, 429);
      clock.time = Date.parse('2026-11-23T00:00:00Z');
      assert.equal((await chat(stack.gateway.url, 'acme', { model: 'gpt-included' })).status, 200);
    });

    it('draws on the wallet once tokens run out when a payment method was ever added, then answers 402', async () => {
      await start({ acme: { wallet: 0.0001, paymentMethod: true, included: { tokens: 5, period: 'month' } } });
      // Within the allowance nothing is reserved, so the default output budget (4,096 tokens) is admitted.
      assert.equal((await chat(stack.gateway.url, 'acme', { model: 'gpt-included' })).status, 200);
      // 5 included tokens (3 input, 2 output); the other 2 output tokens cost 20 micro-dollars.
      assert.equal((await stack.gateway.gate.admin.usage('acme')).wallet, 0.00008);
      // On the wallet each reserves its worst case (a 9-token prompt estimate + 2 output tokens = 43 µ$) and costs 28.
      assert.equal((await chat(stack.gateway.url, 'acme', { model: 'gpt-included', max_tokens: 2 })).status, 200);
      assert.equal((await chat(stack.gateway.url, 'acme', { model: 'gpt-included', max_tokens: 2 })).status, 200);
      assert.equal((await stack.gateway.gate.admin.usage('acme')).wallet, 0.000024);
      const empty = await chat(stack.gateway.url, 'acme', { model: 'gpt-included', max_tokens: 2 });
      assert.equal(empty.status, 402);
      assert.equal(empty.headers.get('x-service-reason'), 'wallet_empty');
    });

    it('answers the exhausted allowance on /v1/messages as a plain 429 in the Anthropic envelope', async () => {
      await start({ acme: { wallet: 0, included: { tokens: 1, period: 'month' } } });
      await message(stack.gateway.url, 'acme', { model: 'gpt-included' });
      const exhausted = await message(stack.gateway.url, 'acme', { model: 'gpt-included' });
      assert.equal(exhausted.status, 429);
      assert.equal(exhausted.body.type, 'error');
      assert.equal(exhausted.headers.get('x-service-reset-at'), null);
    });
  });
});

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
