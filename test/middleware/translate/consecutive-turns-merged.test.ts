import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startStack, TEST_KEY } from '../gateway/gateway-fixture.js';

/**
 * Anthropic wants alternating turns, so a chat client's consecutive messages of one role are merged into one turn on an
 * Anthropic route. The merge copied the turn for every message it took in: 40,000 one-word user messages (1.2 MB, well
 * within the body limit) held the whole process's event loop for 21 s, every other request waiting.
 */
describe('consecutive chat messages merged for an Anthropic route', function () {
  let stack: Awaited<ReturnType<typeof startStack>>;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.close());

  it('answers 60,000 consecutive user messages within seconds, as one user turn upstream', async () => {
    const openai = new OpenAI({ baseURL: `${stack.gateway.url}/v1`, apiKey: TEST_KEY, maxRetries: 0, timeout: 15_000 });
    const messages = Array.from({ length: 60_000 }, (_, index) => ({ role: 'user' as const, content: `word${index % 10}` }));
    const started = Date.now();
    const completion = await openai.chat.completions.create({ model: 'claude', max_tokens: 8, messages });
    const elapsed = Date.now() - started;
    assert.equal(completion.object, 'chat.completion');
    assert.ok(elapsed < 5_000, `answered in ${elapsed} ms`);
    const upstream = stack.anthropic.requests.at(-1)!.body as { messages: { role: string; content: { text: string }[] }[] };
    assert.equal(upstream.messages.length, 1);
    assert.equal(upstream.messages[0]!.content.length, 60_000);
    assert.deepEqual(upstream.messages[0]!.content.slice(0, 2), [{ type: 'text', text: 'word0' }, { type: 'text', text: 'word1' }]);
  });
});
