import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { sendEvents } from '../../support/scripted-provider.js';
import { recordedChunks } from '../../support/recorded.js';
import { TEST_KEY, startScriptedRoutes, type ScriptedRoutes } from '../../support/scripted-routes.js';

/**
 * Anthropic streams a tool call without arguments as `input_json_delta` with `partial_json: ""` (recorded
 * anthropic-tool-no-args). Translated to chat / Responses its arguments must be `{}` (what OpenAI sends and what
 * the same answer gives when not streamed), not the empty string, which no JSON parser reads.
 */
describe('a streamed Anthropic tool call without arguments', () => {
  let stack: ScriptedRoutes;
  let openai: OpenAI;
  const schema = { type: 'object', properties: {}, additionalProperties: false, required: [] as string[] };
  beforeEach(async () => {
    stack = await startScriptedRoutes();
    openai = new OpenAI({ baseURL: `${stack.gateway.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
    const events = recordedChunks('anthropic-tool-no-args').map((line) => JSON.parse(line));
    stack.anthropic.set((_req, res) => sendEvents(res, events));
  });
  afterEach(() => stack.close());

  it('chat.completions.stream(): finalChatCompletion() parses the strict tool call, arguments "{}"', async () => {
    const stream = openai.chat.completions.stream({ model: 'claude', messages: [{ role: 'user', content: 'update' }], tools: [{ type: 'function', function: { name: 'updateIssueList', strict: true, parameters: schema } }] });
    const completion = await stream.finalChatCompletion(); // before the fix: SyntaxError: Unexpected end of JSON input
    const call = completion.choices[0]!.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
    assert.equal(call.function.arguments, '{}');
    assert.equal(completion.choices[0]!.finish_reason, 'tool_calls');
  });

  it('the same call streamed and not streamed has the same arguments', async () => {
    const tools = [{ type: 'function' as const, function: { name: 'updateIssueList', parameters: schema } }];
    let streamed = '';
    for await (const chunk of await openai.chat.completions.create({ model: 'claude', messages: [{ role: 'user', content: 'update' }], tools, stream: true })) {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) streamed += call.function?.arguments ?? '';
    }
    assert.equal(streamed, '{}');
  });

  it('responses.stream(): finalResponse() parses the strict function call, arguments "{}"', async () => {
    const stream = openai.responses.stream({ model: 'claude', input: 'update', tools: [{ type: 'function', name: 'updateIssueList', strict: true, parameters: schema }] });
    const response = await stream.finalResponse(); // before the fix: SyntaxError: Unexpected end of JSON input
    const call = response.output.find((item) => item.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
    assert.equal(call.arguments, '{}');
  });
});
