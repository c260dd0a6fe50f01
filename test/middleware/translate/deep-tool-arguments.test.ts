import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startBedrockStack, type BedrockStack } from '../providers/bedrock/bedrock-stack.js';
import { TEST_KEY, startIssue5Stack, type Issue5Stack } from '../endpoints-issue5/issue5-stack.js';

/**
 * A chat tool call's `arguments` is JSON inside a string, where the body's depth bound (64) never looked: 50,000 nested
 * objects parsed, and serializing the translated request overflowed the stack, a 500 on Anthropic, Gemini and Bedrock
 * routes. Such text is now treated as text that is not JSON, as each translation already treats malformed arguments.
 */
describe('tool-call arguments nested deeper than a body may be', function () {
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

  const deep = `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`;
  const conversation = (args: string, result = 'sunny') => [
    { role: 'user' as const, content: 'Weather?' },
    { role: 'assistant' as const, content: null, tool_calls: [{ id: 'call_1', type: 'function' as const, function: { name: 'weather', arguments: args } }] },
    { role: 'tool' as const, tool_call_id: 'call_1', content: result },
  ];
  const client = (url: string) => new OpenAI({ baseURL: `${url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });

  it('an Anthropic route gets the call with an empty input, as for malformed arguments, and answers', async () => {
    const completion = await client(stack.gateway.url).chat.completions.create({ model: 'claude', messages: conversation(deep) });
    assert.equal(completion.object, 'chat.completion');
    const sent = stack.anthropic.requests.at(-1)!.body as { messages: { content: { type: string; input?: unknown }[] }[] };
    assert.deepEqual(sent.messages[1]!.content.find((block) => block.type === 'tool_use')!.input, {});
  });

  it('an ordinary nested argument still reaches an Anthropic route as its object', async () => {
    await client(stack.gateway.url).chat.completions.create({ model: 'claude', messages: conversation('{"where":{"city":"Paris"}}') });
    const sent = stack.anthropic.requests.at(-1)!.body as { messages: { content: { type: string; input?: unknown }[] }[] };
    assert.deepEqual(sent.messages[1]!.content.find((block) => block.type === 'tool_use')!.input, { where: { city: 'Paris' } });
  });

  for (const route of ['gemini', 'claude-bedrock']) {
    it(`a ${route === 'gemini' ? 'Gemini' : 'Bedrock'} route answers 400, as for arguments that are not a JSON object`, async () => {
      const url = route === 'gemini' ? stack.gateway.url : bedrock.gateway.url;
      const error = (await client(url).chat.completions.create({ model: route, messages: conversation(deep) }).catch((caught: unknown) => caught)) as { status?: number; message?: string };
      assert.equal(error.status, 400, String(error));
      assert.match(String(error.message), /arguments must be a JSON object/);
    });
  }

  it('a Gemini route gets a tool result of deep JSON as its text', async () => {
    await client(stack.gateway.url).chat.completions.create({ model: 'gemini', messages: conversation('{}', deep) });
    const sent = stack.gemini.requests.at(-1)!.body as { contents: { parts: { functionResponse?: { response: unknown } }[] }[] };
    const response = sent.contents.flatMap((content) => content.parts).find((part) => part.functionResponse)!.functionResponse!.response;
    assert.deepEqual(response, { result: deep });
  });
});
