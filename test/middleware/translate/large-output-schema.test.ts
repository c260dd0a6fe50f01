import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { startStack, TEST_KEY } from '../gateway/gateway-fixture.js';

/**
 * An Anthropic client's output schema on an OpenAI route is sent `strict` when it meets OpenAI's strict rules, every
 * property required. That check looked each property up in `required` with `includes`: quadratic in the client's
 * schema, 100,000 properties (2 MB) held the event loop for ~12 s.
 */
describe('a large output schema from an Anthropic client on an OpenAI route', function () {
  this.timeout(30_000);
  let stack: Awaited<ReturnType<typeof startStack>>;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.close());

  it('is checked for strictness at once: 100,000 required properties answered within seconds, sent strict', async () => {
    const anthropic = new Anthropic({ baseURL: stack.gateway.url, apiKey: TEST_KEY, maxRetries: 0, timeout: 20_000 });
    const names = Array.from({ length: 100_000 }, (_, index) => `p${index}`);
    const schema = { type: 'object', properties: Object.fromEntries(names.map((name) => [name, { type: 'string' }])), required: names.reverse(), additionalProperties: false };
    const started = Date.now();
    const message = await anthropic.messages.create({ model: 'gpt', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }], output_config: { format: { type: 'json_schema', schema } } } as Anthropic.MessageCreateParamsNonStreaming);
    const elapsed = Date.now() - started;
    assert.equal(message.type, 'message');
    assert.ok(elapsed < 8_000, `answered in ${elapsed} ms`);
    const sent = stack.openai.requests.at(-1)!.body as { response_format: { type: string; json_schema: { strict?: boolean } } };
    assert.equal(sent.response_format.type, 'json_schema');
    assert.equal(sent.response_format.json_schema.strict, true);
  });
});
