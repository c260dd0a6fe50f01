import assert from 'node:assert/strict';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { microsToUsd, usdToMicros } from '../../../packages/middleware/src/policy/money.js';
import { postJson } from '../../support/gateway.js';
import { TEST_KEY, startStack } from '../gateway/gateway-fixture.js';
import { sample } from './prometheus-text.js';

const METRICS_TOKEN = 'tg-metrics-scrape-token-0123456789abcdef';
const BROKE_KEY = 'tg-broke-org-key-0001-0123456789abcdef';

describe('the Prometheus endpoint', () => {
  let stack: Awaited<ReturnType<typeof startStack>>;
  afterEach(async () => stack?.close());

  const scrape = async (token = METRICS_TOKEN) => {
    const response = await fetch(`${stack.gateway.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    return { status: response.status, type: response.headers.get('content-type') ?? '', text: await response.text() };
  };

  async function startMetered() {
    stack = await startStack({
      keys: [
        { key: TEST_KEY, org: 'acme' },
        { key: BROKE_KEY, org: 'broke' },
      ],
      organizations: { acme: { wallet: 100 }, broke: { wallet: 0 } },
      metrics: { path: '/metrics', auth: { bearer: METRICS_TOKEN } },
    });
  }

  it('counts requests, tokens, cost and denials by reason exactly as the traffic and the ledger had them', async () => {
    await startMetered();
    const openai = new OpenAI({ baseURL: `${stack.gateway.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
    const anthropic = new Anthropic({ baseURL: stack.gateway.url, apiKey: TEST_KEY, maxRetries: 0 });
    const first = await openai.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'hello there' }] });
    const second = await openai.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'and once more, a longer question' }] });
    const stream = await anthropic.messages.create({ model: 'claude', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'stream it' }] });
    for await (const _event of stream) void _event;
    const broke = new OpenAI({ baseURL: `${stack.gateway.url}/v1`, apiKey: BROKE_KEY, maxRetries: 0 });
    await assert.rejects(broke.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }] }), { status: 402 });
    await assert.rejects(broke.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }] }), { status: 402 });
    const unknown = await postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'no-such-model-typed-by-a-client', messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${TEST_KEY}` });
    assert.equal(unknown.status, 404);
    const unauthenticated = await postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'gpt', messages: [] }, { authorization: 'Bearer nope' });
    assert.equal(unauthenticated.status, 401);

    const { status, type, text } = await scrape();
    assert.equal(status, 200);
    assert.match(type, /^text\/plain; version=0\.0\.4/);
    const chat = '/v1/chat/completions';
    assert.equal(sample(text, 'tollgate_requests_total', { endpoint: chat, alias: 'gpt', provider: 'openai', status: 200, reason: 'none' }), 2);
    assert.equal(sample(text, 'tollgate_requests_total', { endpoint: '/v1/messages', alias: 'claude', provider: 'anthropic', status: 200, reason: 'none' }), 1);
    assert.equal(sample(text, 'tollgate_requests_total', { endpoint: chat, alias: 'gpt', provider: 'none', status: 402, reason: 'wallet_empty' }), 2);
    // The model name the client typed never becomes a label.
    assert.equal(sample(text, 'tollgate_requests_total', { endpoint: chat, alias: 'none', provider: 'none', status: 404, reason: 'model_not_found' }), 1);
    assert.doesNotMatch(text, /no-such-model-typed-by-a-client/);
    assert.equal(sample(text, 'tollgate_requests_total', { endpoint: chat, alias: 'none', provider: 'none', status: 401, reason: 'unauthorized' }), 1);

    const gptInput = first.usage!.prompt_tokens + second.usage!.prompt_tokens;
    const gptOutput = first.usage!.completion_tokens + second.usage!.completion_tokens;
    assert.equal(sample(text, 'tollgate_tokens_total', { org: 'acme', alias: 'gpt', direction: 'input' }), gptInput);
    assert.equal(sample(text, 'tollgate_tokens_total', { org: 'acme', alias: 'gpt', direction: 'output' }), gptOutput);
    const usage = await stack.gateway.gate.admin.usage('acme');
    const claudeInput = sample(text, 'tollgate_tokens_total', { org: 'acme', alias: 'claude', direction: 'input' });
    const claudeOutput = sample(text, 'tollgate_tokens_total', { org: 'acme', alias: 'claude', direction: 'output' });
    assert.ok(claudeInput > 0 && claudeOutput > 0);
    assert.equal(gptInput + claudeInput, usage.inputTokens);
    assert.equal(gptOutput + claudeOutput, usage.outputTokens);
    // Wallet billing at list price: the counted cost is what left the wallet, to the micro-dollar.
    const counted = sample(text, 'tollgate_cost_usd_total', { org: 'acme', alias: 'gpt' }) + sample(text, 'tollgate_cost_usd_total', { org: 'acme', alias: 'claude' });
    assert.equal(usdToMicros(counted), usdToMicros(100 - usage.wallet));
    assert.equal(microsToUsd(usdToMicros(counted)), usage.costUsd);

    assert.equal(sample(text, 'tollgate_upstream_attempts_total', { provider: 'openai' }), 2);
    assert.equal(sample(text, 'tollgate_upstream_attempts_total', { provider: 'anthropic' }), 1);
    assert.equal(sample(text, 'tollgate_open_streams'), 0);
    assert.equal(sample(text, 'tollgate_concurrency_slots_in_use', { org: 'acme' }), 0);
    assert.equal(sample(text, 'tollgate_time_to_first_byte_seconds_count', { endpoint: chat, alias: 'gpt' }), 2);
    assert.equal(sample(text, 'tollgate_request_duration_seconds_count', { endpoint: chat, alias: 'gpt' }), 4);
    assert.equal(sample(text, 'tollgate_policy_admit_duration_seconds_count'), 5);
  });

  it('counts retries and failovers when a route fails', async () => {
    await startMetered();
    stack.anthropic.failNext({ status: 529, times: 3 });
    const openai = new OpenAI({ baseURL: `${stack.gateway.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
    await openai.chat.completions.create({ model: 'claude-with-fallback', messages: [{ role: 'user', content: 'hi' }] });
    const { text } = await scrape();
    assert.equal(sample(text, 'tollgate_upstream_attempts_total', { provider: 'anthropic' }), 3);
    assert.equal(sample(text, 'tollgate_upstream_retries_total', { provider: 'anthropic' }), 2);
    assert.equal(sample(text, 'tollgate_upstream_failovers_total', { alias: 'claude-with-fallback' }), 1);
    assert.equal(sample(text, 'tollgate_requests_total', { endpoint: '/v1/chat/completions', alias: 'claude-with-fallback', provider: 'openai', status: 200, reason: 'none' }), 1);
  });

  it('refuses a scrape without the bearer token, or with another key', async () => {
    await startMetered();
    const missing = await fetch(`${stack.gateway.url}/metrics`);
    assert.equal(missing.status, 401);
    assert.equal((await scrape(TEST_KEY)).status, 401);
    const posted = await fetch(`${stack.gateway.url}/metrics`, { method: 'POST', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    assert.equal(posted.status, 405);
  });

  it('is not served, and counts nothing, unless configured', async () => {
    stack = await startStack();
    const response = await fetch(`${stack.gateway.url}/metrics`);
    assert.equal(response.status, 404);
  });

  it('keeps each gateway’s counts apart (a registry per instance)', async () => {
    await startMetered();
    const other = await startStack({ metrics: { path: '/metrics', auth: 'none' } });
    try {
      const openai = new OpenAI({ baseURL: `${stack.gateway.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
      await openai.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }] });
      const mine = (await scrape()).text;
      const theirs = await (await fetch(`${other.gateway.url}/metrics`)).text();
      assert.equal(sample(mine, 'tollgate_upstream_attempts_total', { provider: 'openai' }), 1);
      assert.equal(sample(theirs, 'tollgate_upstream_attempts_total', { provider: 'openai' }), 0);
    } finally {
      await other.close();
    }
  });
});
