import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { countTokens } from '../../../packages/middleware/src/tokenize/index.js';
import { IMAGE_TOKENS } from '../../../packages/middleware/src/tokenize/media-tokens.js';
import { postJson } from '../../support/gateway.js';
import { TEST_KEY, startIssue5Stack, type Issue5Stack } from './issue5-stack.js';

describe('POST /v1/messages/count_tokens', () => {
  let stack: Issue5Stack;
  let anthropic: Anthropic;
  beforeEach(async () => {
    stack = await startIssue5Stack();
    anthropic = new Anthropic({ baseURL: stack.gateway.url, apiKey: TEST_KEY, maxRetries: 0 });
  });
  afterEach(() => stack.close());

  const messages = [{ role: 'user' as const, content: 'count these five words' }];
  // Every string of the request (roles included) in o200k, plus 3 tokens of framing per message.
  const localCount = countTokens('user\ncount these five words\n') + 3;

  it("asks Anthropic's count endpoint on an Anthropic route, with the provider model and key", async () => {
    const answer = await anthropic.messages.countTokens({ model: 'claude', system: 'Be brief.', messages });
    assert.equal(answer.input_tokens, 6, 'the fake counts words of system and messages');
    const upstream = stack.anthropic.requests.at(-1)!;
    assert.equal(upstream.path, '/v1/messages/count_tokens');
    assert.equal((upstream.body as { model: string }).model, 'claude-sonnet-4-5');
    assert.equal(upstream.headers['x-api-key'], 'sk-fake-anthropic');
  });

  for (const alias of ['gpt', 'gemini']) {
    it(`counts with the o200k tokenizer on ${alias}, without calling upstream`, async () => {
      const before = stack.openai.requests.length + stack.gemini.requests.length;
      const answer = await anthropic.messages.countTokens({ model: alias, messages });
      assert.equal(answer.input_tokens, localCount);
      assert.equal(stack.openai.requests.length + stack.gemini.requests.length, before);
    });
  }

  it('counts text that starts with "data:" and a plain-text document as the prompt they are, and a base64 image as an image, not its characters', async () => {
    const log = 'data: {"delta":"one two three four five six seven eight nine ten"}';
    const text = await anthropic.messages.countTokens({ model: 'gpt', messages: [{ role: 'user', content: log }] });
    assert.equal(text.input_tokens, countTokens(`user\n${log}\n`) + 3);
    const document = await anthropic.messages.countTokens({
      model: 'gpt',
      messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: log } }] }],
    });
    assert.equal(document.input_tokens, countTokens(`user\ndocument\ntext\ntext/plain\n${log}\n`) + 3);
    const image = await anthropic.messages.countTokens({
      model: 'gpt',
      messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo'.repeat(100) } }] }],
    });
    // An image is billed by its pixels: the estimate's per-image bound (tokenize/media-tokens.ts), never its base64.
    assert.equal(image.input_tokens, countTokens('user\nimage\nbase64\nimage/png\n') + 3 + IMAGE_TOKENS);
  });

  it('is not billed or rate-counted', async () => {
    await anthropic.messages.countTokens({ model: 'claude', messages });
    await anthropic.messages.countTokens({ model: 'gpt', messages });
    const usage = await stack.gateway.gate.admin.usage('acme');
    assert.deepEqual([usage.requests, usage.inputTokens], [0, 0]);
  });

  it('falls back to the tokenizer when Anthropic stays unavailable after its retries', async () => {
    stack.anthropic.failNext({ status: 529, times: 2 });
    const answer = await anthropic.messages.countTokens({ model: 'claude', messages });
    assert.equal(answer.input_tokens, localCount);
  });

  it('answers every error in the Anthropic envelope: 401, 404, 422 and a relayed 400', async () => {
    const unauthorized = await postJson(`${stack.gateway.url}/v1/messages/count_tokens`, { model: 'claude', messages });
    assert.equal(unauthorized.status, 401);
    await assert.rejects(anthropic.messages.countTokens({ model: 'claude-3-opus-raw', messages }), (error: InstanceType<typeof Anthropic.NotFoundError>) => {
      assert.equal(error.status, 404);
      assert.deepEqual(Object.keys(error.error as object).sort(), ['error', 'type']);
      assert.equal((error.error as { error: { type: string } }).error.type, 'not_found_error');
      return true;
    });
    const invalid = await postJson(`${stack.gateway.url}/v1/messages/count_tokens`, { model: 'claude' }, { 'x-api-key': TEST_KEY });
    assert.equal(invalid.status, 422);
    assert.equal(invalid.body.type, 'error');
    assert.equal(invalid.body.error.type, 'invalid_request_error');
    stack.anthropic.failNext({ status: 400, message: 'messages: roles must alternate' });
    const relayed = await postJson(`${stack.gateway.url}/v1/messages/count_tokens`, { model: 'claude', messages }, { 'x-api-key': TEST_KEY });
    assert.equal(relayed.status, 400);
    assert.deepEqual(relayed.body, { type: 'error', error: { type: 'api_error', message: 'messages: roles must alternate' } });
  });
});
