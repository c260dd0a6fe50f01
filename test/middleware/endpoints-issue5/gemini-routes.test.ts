import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { postJson, readSse } from '../../support/gateway.js';
import { TEST_KEY, startIssue5Stack, type Issue5Stack } from './issue5-stack.js';

describe('Gemini routes for chat completions and messages clients', () => {
  let stack: Issue5Stack;
  let openai: OpenAI;
  let anthropic: Anthropic;
  beforeEach(async () => {
    stack = await startIssue5Stack();
    openai = new OpenAI({ baseURL: `${stack.gateway.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: stack.gateway.url, apiKey: TEST_KEY, maxRetries: 0 });
  });
  afterEach(() => stack.close());

  it('answers a chat completion from Gemini naming the alias, with the key in x-goog-api-key and the model in the path', async () => {
    const completion = await openai.chat.completions.create({ model: 'gemini', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hello gemini' }], max_tokens: 64 });
    assert.equal(completion.model, 'gemini');
    assert.match(completion.choices[0]!.message.content!, /hello gemini/);
    assert.equal(completion.choices[0]!.finish_reason, 'stop');
    const upstream = stack.gemini.requests.at(-1)!;
    assert.equal(upstream.path, '/v1beta/models/gemini-2.5-pro:generateContent');
    assert.equal(upstream.headers['x-goog-api-key'], 'fake-gemini-key');
    assert.deepEqual((upstream.body as { systemInstruction: unknown }).systemInstruction, { parts: [{ text: 'Be brief.' }] });
    const usage = await stack.gateway.gate.admin.usage('acme');
    assert.deepEqual([usage.inputTokens, usage.outputTokens], [completion.usage!.prompt_tokens, completion.usage!.completion_tokens]);
  });

  it('streams chat chunks from streamGenerateContent?alt=sse ending with one finish_reason and the usage asked for', async () => {
    const stream = await openai.chat.completions.create({ model: 'gemini', messages: [{ role: 'user', content: 'stream from gemini' }], stream: true, stream_options: { include_usage: true } });
    let text = '';
    const finishes: string[] = [];
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.choices[0]?.finish_reason) finishes.push(chunk.choices[0].finish_reason);
      if (chunk.usage) usage = chunk.usage;
    }
    assert.match(text, /stream from gemini/);
    assert.deepEqual(finishes, ['stop']);
    assert.ok(usage && usage.completion_tokens > 0);
    assert.equal(stack.gemini.requests.at(-1)!.path, '/v1beta/models/gemini-2.5-pro:streamGenerateContent');
  });

  it('round-trips a tool call: functionCall answered STOP becomes finish_reason tool_calls', async () => {
    stack.gemini.reply({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] });
    const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
    const completion = await openai.chat.completions.create({ model: 'gemini', messages: [{ role: 'user', content: 'weather?' }], tools, tool_choice: 'auto' });
    const call = completion.choices[0]!.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
    assert.equal(completion.choices[0]!.finish_reason, 'tool_calls');
    assert.deepEqual(JSON.parse(call.function.arguments), { city: 'Paris' });
    stack.gemini.reply({ text: 'Sunny.' });
    const next = await openai.chat.completions.create({ model: 'gemini', messages: [{ role: 'user', content: 'weather?' }, completion.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: 'sunny' }], tools });
    assert.equal(next.choices[0]!.message.content, 'Sunny.');
    const contents = (stack.gemini.requests.at(-1)!.body as { contents: { role: string; parts: object[] }[] }).contents;
    assert.deepEqual(contents.map((c) => c.role), ['user', 'model', 'user']);
    assert.deepEqual(contents[2]!.parts[0], { functionResponse: { name: 'get_weather', response: { result: 'sunny' } } });
  });

  it('drops what Gemini cannot take and reports it; clamps n to 8', async () => {
    const response = await postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'gemini', messages: [{ role: 'user', content: 'hi' }], logit_bias: { '1': 2 }, logprobs: true, n: 9, temperature: 1.9 }, { authorization: `Bearer ${TEST_KEY}` });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('x-service-dropped-params'), 'logit_bias,logprobs');
    assert.equal(response.headers.get('x-service-clamped-params'), 'n=9>8');
    // No max_tokens from the client: the alias's budget (its maxOutputTokens), which the reservation holds, is sent.
    assert.deepEqual((stack.gemini.requests.at(-1)!.body as { generationConfig: unknown }).generationConfig, { temperature: 1.9, candidateCount: 8, maxOutputTokens: 65_536 });
  });

  it('never adds a finish_reason to a failed stream of the model named gemini (DESIGN does better than contract §6.1 rule 4)', async () => {
    stack.gemini.dropAfterChunks(2);
    const response = await fetch(`${stack.gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` }, body: JSON.stringify({ model: 'gemini', stream: true, messages: [{ role: 'user', content: 'a long answer with many words' }] }) });
    assert.equal(response.status, 200);
    const { events, broke } = await readSse(response);
    assert.equal(broke, true);
    assert.ok(events.length >= 1);
    assert.ok(events.every((e) => e.data !== '[DONE]' && !(JSON.parse(e.data) as { choices: { finish_reason: unknown }[] }).choices.some((c) => c.finish_reason)));
    assert.equal((await stack.gateway.gate.admin.usage('acme')).requests, 1, 'the partial output is settled');
  });

  it('serves a messages client from Gemini, plain and streamed, with top_k carried to topK', async () => {
    // top_k is an Anthropic request field this SDK version does not type.
    const withTopK = { model: 'gemini', max_tokens: 100, top_k: 5, messages: [{ role: 'user' as const, content: 'hello from claude sdk' }] };
    const message = await anthropic.messages.create(withTopK);
    assert.equal(message.model, 'gemini');
    assert.equal(message.stop_reason, 'end_turn');
    assert.match((message.content[0] as { text: string }).text, /hello from claude sdk/);
    assert.deepEqual((stack.gemini.requests.at(-1)!.body as { generationConfig: unknown }).generationConfig, { maxOutputTokens: 100, topK: 5 });
    const stream = anthropic.messages.stream({ model: 'gemini', max_tokens: 100, messages: [{ role: 'user', content: 'stream it' }] });
    const final = await stream.finalMessage();
    assert.match((final.content[0] as { text: string }).text, /stream it/);
    assert.ok(final.usage.output_tokens > 0);
  });

  it('never closes a failed Gemini stream to a messages client with message_stop', async () => {
    stack.gemini.dropAfterChunks(2);
    const response = await fetch(`${stack.gateway.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': TEST_KEY }, body: JSON.stringify({ model: 'gemini', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'a long answer with many words' }] }) });
    const { events, broke } = await readSse(response);
    assert.equal(broke, true);
    assert.ok(!events.some((e) => e.event === 'message_stop' || e.event === 'message_delta'));
  });

  it("relays Gemini's error message and status with type api_error, in the Anthropic envelope on /v1/messages", async () => {
    stack.gemini.failNext({ status: 400, message: 'Request contains an invalid argument.' });
    await assert.rejects(anthropic.messages.create({ model: 'gemini', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }), (error: InstanceType<typeof Anthropic.BadRequestError>) => {
      assert.equal(error.status, 400);
      assert.deepEqual(error.error, { type: 'error', error: { type: 'api_error', message: 'Request contains an invalid argument.' } });
      return true;
    });
  });
});
