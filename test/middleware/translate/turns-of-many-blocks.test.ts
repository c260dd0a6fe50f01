import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { startBedrockStack, type BedrockStack } from '../providers/bedrock/bedrock-stack.js';
import { TEST_KEY, startIssue5Stack, type Issue5Stack } from '../endpoints-issue5/issue5-stack.js';

/**
 * A turn of 150,000 content blocks (~5 MiB of JSON, within the 20 MiB body limit) is a body like any other: translated
 * and answered. The translations merged such a turn with `push(...blocks)`, which passes every block as an argument on
 * the stack and overflowed it: a 500 on every translating route.
 */
describe('a turn of 150,000 content blocks on a translating route', function () {
  this.timeout(60_000);
  const BLOCKS = 150_000;
  let stack: Issue5Stack;
  let bedrock: BedrockStack;
  before(async () => {
    stack = await startIssue5Stack();
    bedrock = await startBedrockStack();
  });
  after(async () => {
    await stack.close();
    await bedrock.close();
  });

  it('an Anthropic client sending that many tool results to an OpenAI route gets its answer, billed', async () => {
    const anthropic = new Anthropic({ baseURL: stack.gateway.url, apiKey: TEST_KEY, maxRetries: 0 });
    const results = Array.from({ length: BLOCKS }, (_, index) => ({ type: 'tool_result' as const, tool_use_id: `call_${index}`, content: 'ok' }));
    const before = await stack.gateway.gate.admin.usage('acme');
    const message = await anthropic.messages.create({ model: 'gpt', max_tokens: 16, messages: [{ role: 'user', content: results }] });
    assert.equal(message.type, 'message');
    const upstream = stack.openai.requests.at(-1)!.body as { messages: { role: string }[] };
    assert.equal(upstream.messages.length, BLOCKS, 'one tool message per result');
    const after = await stack.gateway.gate.admin.usage('acme');
    assert.equal(after.requests, before.requests + 1);
  });

  for (const route of ['gemini', 'claude-bedrock']) {
    it(`a chat client whose second user turn has that many text parts gets its answer from ${route === 'gemini' ? 'a Gemini' : 'a Bedrock'} route`, async () => {
      const gateway = route === 'gemini' ? stack.gateway : bedrock.gateway;
      const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
      const parts = Array.from({ length: BLOCKS }, () => ({ type: 'text' as const, text: 'a' }));
      const completion = await openai.chat.completions.create({ model: route, max_tokens: 16, messages: [{ role: 'user', content: 'first' }, { role: 'user', content: parts }] });
      assert.equal(completion.object, 'chat.completion');
      assert.equal(completion.choices[0]!.finish_reason !== undefined, true);
    });
  }
});
