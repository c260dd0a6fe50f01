import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { postJson } from '../../../support/gateway.js';
import { BEDROCK_MODEL, TEST_KEY, startBedrockStack, type BedrockStack } from './bedrock-stack.js';

const auth = { authorization: `Bearer ${TEST_KEY}` };

describe('Bedrock routes for chat completions clients (Converse / ConverseStream)', () => {
  let stack: BedrockStack;
  let openai: OpenAI;
  beforeEach(async () => {
    stack = await startBedrockStack();
    openai = new OpenAI({ baseURL: `${stack.gateway.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
  });
  afterEach(() => stack.close());

  it('answers a chat completion through a SigV4-signed Converse call, the model id encoded in the path', async () => {
    const { data: completion, response } = await openai.chat.completions.create({ model: 'claude-bedrock', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hello bedrock' }], max_tokens: 64, temperature: 0.5, stop: ['END'] }).withResponse();
    assert.equal(completion.model, 'claude-bedrock');
    assert.equal(completion.choices[0]!.message.content, 'Echo: hello bedrock');
    assert.equal(completion.choices[0]!.finish_reason, 'stop');
    const upstream = stack.bedrock.requests.at(-1)!;
    assert.equal(upstream.path, `/model/${encodeURIComponent(BEDROCK_MODEL)}/converse`);
    assert.match(String(upstream.headers.authorization), /^AWS4-HMAC-SHA256 Credential=AKIAFAKEBEDROCK00001\/\d{8}\/us-east-1\/bedrock\/aws4_request/);
    assert.deepEqual(upstream.body, { messages: [{ role: 'user', content: [{ text: 'hello bedrock' }] }], system: [{ text: 'Be brief.' }], inferenceConfig: { maxTokens: 64, temperature: 0.5, stopSequences: ['END'] } });
    // Bedrock's own id of the answer (x-amzn-requestid), beside Tollgate's.
    assert.equal(response.headers.get('x-upstream-request-id'), upstream.requestId);
  });

  it("relays a model's text naming the endpoint's host as written (signing headers are not taken for secrets)", async () => {
    const host = new URL(stack.bedrock.baseUrl).host;
    stack.bedrock.reply({ text: `Call ${host} for details` });
    const completion = await openai.chat.completions.create({ model: 'claude-bedrock', messages: [{ role: 'user', content: 'where?' }] });
    assert.equal(completion.choices[0]!.message.content, `Call ${host} for details`);
  });

  it('bills exactly the usage Bedrock reported, cache reads included in the prompt', async () => {
    stack.bedrock.reply({ text: 'one two three', cachedTokens: 2 });
    const completion = await openai.chat.completions.create({ model: 'claude-bedrock', messages: [{ role: 'user', content: 'count these five words please' }] });
    // The fake counts 5 prompt words, 2 of them read from the cache (Bedrock reports 3 + 2 read).
    assert.deepEqual(completion.usage, { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8, prompt_tokens_details: { cached_tokens: 2 } });
    const usage = await stack.gateway.gate.admin.usage('acme');
    assert.deepEqual([usage.requests, usage.inputTokens, usage.outputTokens, usage.cachedInputTokens], [1, 5, 3, 2]);
    // $3/M in (cache reads at the input rate by default) and $15/M out: 5 × 3 + 3 × 15 = 60 micro-dollars, off a $100 wallet.
    assert.deepEqual([usage.costUsd, usage.wallet], [0.00006, 99.99994]);
  });

  it('streams ConverseStream as chat chunks: one finish_reason, then the usage chunk asked for, billed once', async () => {
    const stream = await openai.chat.completions.create({ model: 'claude-bedrock', messages: [{ role: 'user', content: 'stream from bedrock' }], stream: true, stream_options: { include_usage: true } });
    let text = '';
    const finishes: string[] = [];
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.choices[0]?.finish_reason) finishes.push(chunk.choices[0].finish_reason);
      if (chunk.usage) usage = chunk.usage;
    }
    assert.equal(text, 'Echo: stream from bedrock');
    assert.deepEqual(finishes, ['stop']);
    assert.deepEqual(usage, { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 });
    assert.equal(stack.bedrock.requests.at(-1)!.path, `/model/${encodeURIComponent(BEDROCK_MODEL)}/converse-stream`);
    const billed = await stack.gateway.gate.admin.usage('acme');
    assert.deepEqual([billed.requests, billed.inputTokens, billed.outputTokens], [1, 3, 4]);
  });

  it('round-trips a tool call: toolSpec and toolChoice out, toolUse back as tool_calls, the result as toolResult', async () => {
    stack.bedrock.reply({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] });
    const tools = [{ type: 'function' as const, function: { name: 'get_weather', description: 'Weather now', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
    const completion = await openai.chat.completions.create({ model: 'claude-bedrock', messages: [{ role: 'user', content: 'weather?' }], tools, tool_choice: 'required' });
    const call = completion.choices[0]!.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
    assert.equal(completion.choices[0]!.finish_reason, 'tool_calls');
    assert.deepEqual(JSON.parse(call.function.arguments), { city: 'Paris' });
    assert.deepEqual((stack.bedrock.requests.at(-1)!.body as { toolConfig: unknown }).toolConfig, {
      tools: [{ toolSpec: { name: 'get_weather', description: 'Weather now', inputSchema: { json: { type: 'object', properties: { city: { type: 'string' } } } } } }],
      toolChoice: { any: {} },
    });
    stack.bedrock.reply({ text: 'Sunny.' });
    const next = await openai.chat.completions.create({ model: 'claude-bedrock', messages: [{ role: 'user', content: 'weather?' }, completion.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: 'sunny' }], tools, tool_choice: { type: 'function', function: { name: 'get_weather' } } });
    assert.equal(next.choices[0]!.message.content, 'Sunny.');
    const sent = stack.bedrock.requests.at(-1)!.body as { messages: { role: string; content: object[] }[]; toolConfig: { toolChoice: unknown } };
    assert.deepEqual(sent.messages.map((m) => m.role), ['user', 'assistant', 'user']);
    assert.deepEqual(sent.messages[1]!.content, [{ toolUse: { toolUseId: call.id, name: 'get_weather', input: { city: 'Paris' } } }]);
    assert.deepEqual(sent.messages[2]!.content, [{ toolResult: { toolUseId: call.id, content: [{ text: 'sunny' }] } }]);
    assert.deepEqual(sent.toolConfig.toolChoice, { tool: { name: 'get_weather' } });
  });

  it('streams a tool call: the toolUse block start names the call, its input deltas are the arguments', async () => {
    stack.bedrock.reply({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris', unit: 'C' } }] });
    const stream = await openai.chat.completions.create({ model: 'claude-bedrock', messages: [{ role: 'user', content: 'weather?' }], tools: [{ type: 'function', function: { name: 'get_weather' } }], stream: true });
    let args = '';
    let name = '';
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
        name += call.function?.name ?? '';
        args += call.function?.arguments ?? '';
      }
      finish ??= chunk.choices[0]?.finish_reason;
    }
    assert.equal(name, 'get_weather');
    assert.deepEqual(JSON.parse(args), { city: 'Paris', unit: 'C' });
    assert.equal(finish, 'tool_calls');
  });

  it('drops what Converse cannot take and reports it; clamps temperature to 1 and n to 1', async () => {
    const response = await postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'claude-bedrock', messages: [{ role: 'user', content: 'hi' }], logit_bias: { '1': 2 }, seed: 7, n: 2, temperature: 1.5 }, auth);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('x-service-dropped-params'), 'seed,logit_bias');
    assert.equal(response.headers.get('x-service-clamped-params'), 'temperature=1.5>1,n=2>1');
    // No max_tokens from the client: the alias's budget (its maxOutputTokens), which the reservation holds, is sent.
    assert.deepEqual((stack.bedrock.requests.at(-1)!.body as { inferenceConfig: unknown }).inferenceConfig, { temperature: 1, maxTokens: 8_192 });
  });

  it('relays a Bedrock ValidationException as 400 api_error with its message, not retried', async () => {
    stack.bedrock.failNext({ status: 400, message: 'Malformed input request: extraneous key [foo] is not permitted' });
    const response = await postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'claude-bedrock', messages: [{ role: 'user', content: 'hi' }] }, auth);
    assert.equal(response.status, 400);
    assert.equal(response.body.error.type, 'api_error');
    assert.equal(response.body.error.message, 'Malformed input request: extraneous key [foo] is not permitted');
    assert.equal(response.body.error.code, 'ValidationException');
    assert.equal(stack.bedrock.requests.length, 1);
  });

  it('retries a ThrottlingException (429) and answers from the next attempt', async () => {
    stack.bedrock.failNext({ status: 429, message: 'Too many requests, please wait before trying again.' });
    const response = await postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'claude-bedrock', messages: [{ role: 'user', content: 'again' }] }, auth);
    assert.equal(response.status, 200);
    assert.equal(stack.bedrock.requests.length, 2);
    assert.notEqual(stack.bedrock.requests[0]!.headers.authorization, undefined);
  });

  it('rejects an image link (Converse takes bytes only) with a clear 400 and calls no one', async () => {
    const response = await postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'claude-bedrock', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }] }] }, auth);
    assert.equal(response.status, 400);
    assert.match(response.body.error.message, /data URLs only/);
    assert.equal(stack.bedrock.requests.length, 0);
    assert.equal((await stack.gateway.gate.admin.usage('acme')).outputTokens, 0);
  });

  it('sends an inline image as Converse image bytes', async () => {
    await openai.chat.completions.create({ model: 'claude-bedrock', messages: [{ role: 'user', content: [{ type: 'text', text: 'what is it' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }] }] });
    const content = (stack.bedrock.requests.at(-1)!.body as { messages: { content: unknown[] }[] }).messages[0]!.content;
    assert.deepEqual(content, [{ text: 'what is it' }, { image: { format: 'png', source: { bytes: 'iVBORw0KGgo=' } } }]);
  });

});
