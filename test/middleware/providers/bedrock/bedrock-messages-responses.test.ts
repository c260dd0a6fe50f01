import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { postJson } from '../../../support/gateway.js';
import { TEST_KEY, startBedrockStack, type BedrockStack } from './bedrock-stack.js';

describe('Bedrock routes for Anthropic messages and OpenAI responses clients (through the chat pivot)', () => {
  let stack: BedrockStack;
  let openai: OpenAI;
  let anthropic: Anthropic;
  beforeEach(async () => {
    stack = await startBedrockStack();
    openai = new OpenAI({ baseURL: `${stack.gateway.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: stack.gateway.url, apiKey: TEST_KEY, maxRetries: 0 });
  });
  afterEach(() => stack.close());

  it('answers a messages request with the Anthropic SDK: system and max_tokens become Converse fields, usage exact', async () => {
    const message = await anthropic.messages.create({ model: 'claude-bedrock', max_tokens: 100, system: 'Be brief.', messages: [{ role: 'user', content: 'hello from claude sdk' }] });
    assert.equal(message.model, 'claude-bedrock');
    assert.equal(message.stop_reason, 'end_turn');
    assert.deepEqual(message.content, [{ type: 'text', text: 'Echo: hello from claude sdk' }]);
    assert.deepEqual(stack.bedrock.requests.at(-1)!.body, { messages: [{ role: 'user', content: [{ text: 'hello from claude sdk' }] }], system: [{ text: 'Be brief.' }], inferenceConfig: { maxTokens: 100 } });
    // The fake counts 6 prompt words (system included) and 5 answer words.
    assert.deepEqual([message.usage.input_tokens, message.usage.output_tokens], [6, 5]);
    const usage = await stack.gateway.gate.admin.usage('acme');
    assert.deepEqual([usage.inputTokens, usage.outputTokens], [6, 5]);
  });

  it('streams a messages response with the Anthropic SDK, closed by message_delta and message_stop, billed once', async () => {
    const stream = anthropic.messages.stream({ model: 'claude-bedrock', max_tokens: 100, messages: [{ role: 'user', content: 'stream it please' }] });
    const final = await stream.finalMessage();
    assert.deepEqual(final.content, [{ type: 'text', text: 'Echo: stream it please' }]);
    assert.equal(final.stop_reason, 'end_turn');
    assert.equal(final.usage.output_tokens, 4);
    const usage = await stack.gateway.gate.admin.usage('acme');
    assert.deepEqual([usage.requests, usage.inputTokens, usage.outputTokens], [1, 3, 4]);
  });

  it('uses a tool from a messages client: tool_use out, tool_result back as a Converse toolResult', async () => {
    stack.bedrock.reply({ toolCalls: [{ name: 'lookup', arguments: { q: 'tollgate' } }] });
    const tools = [{ name: 'lookup', description: 'Search', input_schema: { type: 'object' as const, properties: { q: { type: 'string' } } } }];
    const message = await anthropic.messages.create({ model: 'claude-bedrock', max_tokens: 100, tools, tool_choice: { type: 'any' }, messages: [{ role: 'user', content: 'search it' }] });
    assert.equal(message.stop_reason, 'tool_use');
    const use = message.content.find((block) => block.type === 'tool_use')!;
    assert.deepEqual(use.input, { q: 'tollgate' });
    assert.deepEqual((stack.bedrock.requests.at(-1)!.body as { toolConfig: { toolChoice: unknown } }).toolConfig.toolChoice, { any: {} });
    stack.bedrock.reply({ text: 'Found it.' });
    const next = await anthropic.messages.create({
      model: 'claude-bedrock',
      max_tokens: 100,
      tools,
      messages: [{ role: 'user', content: 'search it' }, { role: 'assistant', content: message.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'one hit' }] }],
    });
    assert.deepEqual(next.content, [{ type: 'text', text: 'Found it.' }]);
    const sent = (stack.bedrock.requests.at(-1)!.body as { messages: { role: string; content: object[] }[] }).messages;
    assert.deepEqual(sent.map((m) => m.role), ['user', 'assistant', 'user']);
    assert.deepEqual(sent[2]!.content, [{ toolResult: { toolUseId: use.id, content: [{ text: 'one hit' }] } }]);
  });

  it('drops top_k for a messages client (Converse has no common field for it) and says so', async () => {
    const response = await postJson(`${stack.gateway.url}/v1/messages`, { model: 'claude-bedrock', max_tokens: 50, top_k: 5, temperature: 0.3, messages: [{ role: 'user', content: 'hi' }] }, { 'x-api-key': TEST_KEY });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('x-service-dropped-params'), 'top_k');
    assert.deepEqual((stack.bedrock.requests.at(-1)!.body as { inferenceConfig: unknown }).inferenceConfig, { maxTokens: 50, temperature: 0.3 });
  });

  it('drops and reports structured output Converse cannot enforce, for messages and responses clients alike', async () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false };
    const messages = await postJson(`${stack.gateway.url}/v1/messages`, { model: 'claude-bedrock', max_tokens: 50, output_format: { type: 'json_schema', schema }, messages: [{ role: 'user', content: 'hi' }] }, { 'x-api-key': TEST_KEY });
    assert.equal(messages.status, 200);
    assert.equal(messages.headers.get('x-service-dropped-params'), 'output_format');
    const responses = await postJson(`${stack.gateway.url}/v1/responses`, { model: 'claude-bedrock', input: 'hi', text: { format: { type: 'json_schema', name: 'a', schema } } }, { authorization: `Bearer ${TEST_KEY}` });
    assert.equal(responses.status, 200);
    assert.equal(responses.headers.get('x-service-dropped-params'), 'text');
  });

  it('answers an OpenAI responses request through Converse, with usage and max_output_tokens as maxTokens', async () => {
    const response = await openai.responses.create({ model: 'claude-bedrock', input: 'hello responses', instructions: 'Be brief.', max_output_tokens: 77 });
    assert.equal(response.model, 'claude-bedrock');
    assert.equal(response.status, 'completed');
    assert.equal(response.output_text, 'Echo: hello responses');
    assert.deepEqual([response.usage!.input_tokens, response.usage!.output_tokens], [4, 3]);
    const sent = stack.bedrock.requests.at(-1)!.body as { system: unknown; inferenceConfig: unknown };
    assert.deepEqual(sent.system, [{ text: 'Be brief.' }]);
    assert.deepEqual(sent.inferenceConfig, { maxTokens: 77 });
  });

  it('streams an OpenAI responses request from ConverseStream to response.completed with usage', async () => {
    const stream = await openai.responses.create({ model: 'claude-bedrock', input: 'stream responses now', stream: true });
    let text = '';
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') completed = event.response;
    }
    assert.equal(text, 'Echo: stream responses now');
    assert.equal(completed?.status, 'completed');
    assert.deepEqual([completed!.usage!.input_tokens, completed!.usage!.output_tokens], [3, 4]);
    const usage = await stack.gateway.gate.admin.usage('acme');
    assert.deepEqual([usage.requests, usage.inputTokens, usage.outputTokens], [1, 3, 4]);
  });

  it('streams a function call to a responses client from toolUse deltas', async () => {
    stack.bedrock.reply({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] });
    const stream = await openai.responses.create({ model: 'claude-bedrock', input: 'weather?', tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false }], stream: true });
    let call: OpenAI.Responses.ResponseFunctionToolCall | undefined;
    for await (const event of stream) if (event.type === 'response.output_item.done' && event.item.type === 'function_call') call = event.item;
    assert.equal(call?.name, 'get_weather');
    assert.deepEqual(JSON.parse(call!.arguments), { city: 'Oslo' });
  });
});
