import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { keyOf, startPolicyStack } from '../policy/policy-fixture.js';

/** A fetch that counts the attempts an SDK makes, so a test sees its retry loop from outside. */
function countingFetch(): { fetch: typeof fetch; attempts: () => number } {
  let attempts = 0;
  return {
    fetch: (input, init) => {
      attempts++;
      return fetch(input, init);
    },
    attempts: () => attempts,
  };
}

describe('x-should-retry and the official SDKs’ retry loops (contract §7.3)', () => {
  let stack: Awaited<ReturnType<typeof startPolicyStack>>;
  afterEach(() => stack.close());

  /** One organization whose included allowance the first request uses up; no payment method, no wallet. */
  async function exhaustAllowance(): Promise<void> {
    stack = await startPolicyStack({ acme: { wallet: 0, included: { tokens: 1, period: 'month' } } });
    const first = await new OpenAI({ baseURL: `${stack.gateway.url}/v1`, apiKey: keyOf('acme'), maxRetries: 0 }).chat.completions.create({ model: 'gpt-included', messages: [{ role: 'user', content: 'use it up' }] });
    assert.ok(first.choices[0]);
  }

  it('the openai SDK at its default maxRetries makes one attempt on included_allowance_exhausted', async () => {
    await exhaustAllowance();
    const counter = countingFetch();
    const openai = new OpenAI({ baseURL: `${stack.gateway.url}/v1`, apiKey: keyOf('acme'), fetch: counter.fetch });
    const error = await openai.chat.completions.create({ model: 'gpt-included', messages: [{ role: 'user', content: 'more' }] }).catch((e: unknown) => e);
    assert.ok(error instanceof OpenAI.RateLimitError);
    assert.equal((error.error as { code?: string }).code, 'included_allowance_exhausted');
    assert.equal(counter.attempts(), 1);
  });

  it('the anthropic SDK at its default maxRetries makes one attempt on an exhausted allowance behind /v1/messages', async () => {
    await exhaustAllowance();
    const counter = countingFetch();
    const anthropic = new Anthropic({ baseURL: stack.gateway.url, apiKey: keyOf('acme'), fetch: counter.fetch });
    const error = await anthropic.messages.create({ model: 'gpt-included', max_tokens: 32, messages: [{ role: 'user', content: 'more' }] }).catch((e: unknown) => e);
    assert.ok(error instanceof Anthropic.RateLimitError);
    assert.equal(error.headers?.get('x-service-reason'), null, 'contract §7.1 rule 3: no denial header on /v1/messages');
    assert.equal(counter.attempts(), 1);
  });

  it('marks a rate limit as worth retrying and a 401 as not, in raw headers', async () => {
    stack = await startPolicyStack({ acme: { wallet: 10, limits: { rpm: 1 } } });
    const send = (headers: Record<string, string>) => fetch(`${stack.gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'two' }] }) });
    assert.equal((await send({ authorization: `Bearer ${keyOf('acme')}` })).status, 200);
    const limited = await send({ authorization: `Bearer ${keyOf('acme')}` });
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('x-should-retry'), 'true');
    const unauthorized = await send({});
    assert.equal(unauthorized.status, 401);
    assert.equal(unauthorized.headers.get('x-should-retry'), 'false');
  });
});
