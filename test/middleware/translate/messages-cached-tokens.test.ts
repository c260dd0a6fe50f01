import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { sendJson } from '../../support/scripted-provider.js';
import { TEST_KEY, sendSse, startScriptedRoutes, type ScriptedRoutes } from '../../support/scripted-routes.js';

const usage = { prompt_tokens: 2000, completion_tokens: 5, total_tokens: 2005, prompt_tokens_details: { cached_tokens: 1920 } };
const chunk = (delta: object, finish: string | null = null) => ({ id: 'chatcmpl-c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] });

/**
 * A Messages client on an OpenAI (or Gemini) route: the provider read 1920 of 2000 prompt tokens from its cache
 * and Tollgate bills them as cache reads, but the client is told `input_tokens: 2000` and no
 * `cache_read_input_tokens`. In Anthropic's usage `input_tokens` is the uncached rest and cache reads are
 * `cache_read_input_tokens` (README "Cached prompt tokens"; chat and Responses clients see the cached count).
 */
describe('cached prompt tokens on translated /v1/messages', () => {
  let stack: ScriptedRoutes;
  let anthropic: Anthropic;
  beforeEach(async () => {
    stack = await startScriptedRoutes();
    anthropic = new Anthropic({ baseURL: stack.gateway.url, apiKey: TEST_KEY, maxRetries: 0 });
    stack.openai.set((_req, res, body) =>
      body.stream
        ? sendSse(res, [chunk({ role: 'assistant', content: 'Hi' }), chunk({}, 'stop'), { ...chunk({}), choices: [], usage }], { done: true })
        : sendJson(res, 200, { id: 'chatcmpl-c', object: 'chat.completion', created: 1, model: 'gpt-4o', choices: [{ index: 0, message: { role: 'assistant', content: 'Hi', refusal: null }, finish_reason: 'stop', logprobs: null }], usage }),
    );
  });
  afterEach(() => stack.close());

  it('messages.create(): input_tokens is the uncached rest, cache_read_input_tokens the cache reads', async () => {
    const message = await anthropic.messages.create({ model: 'gpt', max_tokens: 100, messages: [{ role: 'user', content: 'x' }] });
    assert.equal(message.usage.cache_read_input_tokens, 1920); // before the fix: undefined, and input_tokens 2000
    assert.equal(message.usage.input_tokens, 80);
  });

  it('messages.stream(): finalMessage().usage reports the cache reads apart', async () => {
    const message = await anthropic.messages.stream({ model: 'gpt', max_tokens: 100, messages: [{ role: 'user', content: 'x' }] }).finalMessage();
    assert.equal(message.usage.cache_read_input_tokens, 1920);
    assert.equal(message.usage.input_tokens, 80);
    assert.equal((await stack.gateway.gate.admin.usage('acme')).cachedInputTokens, 1920, 'what is billed as cache reads');
  });
});
