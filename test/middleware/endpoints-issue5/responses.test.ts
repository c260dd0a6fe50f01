import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { postJson, readSse } from '../../support/gateway.js';
import { TEST_KEY, startIssue5Stack, type Issue5Stack } from './issue5-stack.js';

const kinds = [
  { alias: 'gpt', name: 'an OpenAI-compatible route (translated through chat)', upstream: (s: Issue5Stack) => s.openai },
  { alias: 'claude', name: 'an Anthropic route', upstream: (s: Issue5Stack) => s.anthropic },
  { alias: 'gemini', name: 'a Gemini route', upstream: (s: Issue5Stack) => s.gemini },
] as const;

const weatherTool = { type: 'function' as const, name: 'get_weather', description: 'Weather in a city', strict: false, parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };

describe('POST /v1/responses', () => {
  let stack: Issue5Stack;
  let openai: OpenAI;
  beforeEach(async () => {
    stack = await startIssue5Stack();
    openai = new OpenAI({ baseURL: `${stack.gateway.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
  });
  afterEach(() => stack.close());

  for (const kind of kinds) {
    describe(`on ${kind.name}`, () => {
      it('answers a response object naming the alias, with output_text and usage, and meters it', async () => {
        const response = await openai.responses.create({ model: kind.alias, instructions: 'Be brief.', input: 'hello responses' });
        assert.equal(response.object, 'response');
        assert.equal(response.model, kind.alias);
        assert.equal(response.status, 'completed');
        assert.match(response.output_text, /hello responses/);
        assert.equal(response.output[0]?.type, 'message');
        assert.ok(response.usage!.input_tokens > 0 && response.usage!.output_tokens > 0);
        const usage = await stack.gateway.gate.admin.usage('acme');
        assert.equal(usage.requests, 1);
        assert.equal(usage.inputTokens, response.usage!.input_tokens);
        assert.equal(usage.outputTokens, response.usage!.output_tokens);
        assert.ok(JSON.stringify(kind.upstream(stack).requests.at(-1)!.body).includes('Be brief.'), 'instructions reached upstream');
      });

      it('answers an input_image whose image_url is not a string with a 4xx, never a 500, and an odd text without a 500', async () => {
        for (const odd of ['{"toString":"x","valueOf":"y"}', '[{"toString":"x"}]', '1']) {
          const image = await postJson(`${stack.gateway.url}/v1/responses`, `{"model":"${kind.alias}","input":[{"role":"user","content":[{"type":"input_image","image_url":${odd}}]}]}`, { authorization: `Bearer ${TEST_KEY}` });
          assert.ok(image.status >= 400 && image.status < 500, `${odd}: ${image.status} ${image.text}`);
          const text = await postJson(`${stack.gateway.url}/v1/responses`, `{"model":"${kind.alias}","input":[{"role":"user","content":[{"type":"input_text","text":${odd}}]}]}`, { authorization: `Bearer ${TEST_KEY}` });
          assert.ok(text.status < 500, `${odd}: ${text.status} ${text.text}`);
        }
      });

      it('streams the Responses events the SDK assembles, ending with response.completed carrying usage', async () => {
        const stream = openai.responses.stream({ model: kind.alias, input: 'stream these words please' });
        const types: string[] = [];
        let text = '';
        for await (const event of stream) {
          types.push(event.type);
          if (event.type === 'response.output_text.delta') text += event.delta;
        }
        const final = await stream.finalResponse();
        assert.deepEqual(types.slice(0, 2), ['response.created', 'response.in_progress']);
        assert.equal(types.at(-1), 'response.completed');
        for (const type of ['response.output_item.added', 'response.content_part.added', 'response.output_text.done', 'response.content_part.done', 'response.output_item.done']) assert.ok(types.includes(type), type);
        assert.match(text, /stream these words please/);
        assert.equal(final.output_text, text);
        assert.equal(final.model, kind.alias);
        assert.ok(final.usage!.output_tokens > 0);
        assert.equal((await stack.gateway.gate.admin.usage('acme')).outputTokens, final.usage!.output_tokens);
      });

      it('round-trips a function call: function_call item out, function_call_output back in', async () => {
        kind.upstream(stack).reply({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] });
        const first = await openai.responses.create({ model: kind.alias, input: 'weather in Paris?', tools: [weatherTool], tool_choice: 'required' });
        const call = first.output.find((item) => item.type === 'function_call');
        assert.ok(call && call.type === 'function_call');
        assert.equal(call.name, 'get_weather');
        assert.deepEqual(JSON.parse(call.arguments), { city: 'Paris' });
        kind.upstream(stack).reply({ text: 'It is sunny.' });
        const second = await openai.responses.create({
          model: kind.alias,
          input: [{ role: 'user', content: 'weather in Paris?' }, { type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments }, { type: 'function_call_output', call_id: call.call_id, output: '{"sky":"sunny"}' }],
          tools: [weatherTool],
        });
        assert.equal(second.output_text, 'It is sunny.');
        assert.ok(JSON.stringify(kind.upstream(stack).requests.at(-1)!.body).includes('sunny'), 'the tool result reached upstream');
      });

      it('streams a function call as function_call_arguments deltas and a done item', async () => {
        kind.upstream(stack).reply({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] });
        const stream = openai.responses.stream({ model: kind.alias, input: 'weather?', tools: [weatherTool] });
        const types: string[] = [];
        for await (const event of stream) types.push(event.type);
        const final = await stream.finalResponse();
        assert.ok(types.includes('response.function_call_arguments.done'));
        const call = final.output.find((item) => item.type === 'function_call');
        assert.deepEqual(JSON.parse((call as { arguments: string }).arguments), { city: 'Oslo' });
      });

      it('ends the stream abnormally on a mid-stream failure: no response.completed, the socket closes, partial output is billed', async () => {
        kind.upstream(stack).dropAfterChunks(3);
        const response = await fetch(`${stack.gateway.url}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` }, body: JSON.stringify({ model: kind.alias, stream: true, input: 'a long answer with many words please' }) });
        assert.equal(response.status, 200);
        const { events, broke } = await readSse(response);
        assert.equal(broke, true);
        assert.ok(events.some((e) => e.event === 'response.created'));
        assert.ok(!events.some((e) => e.event === 'response.completed' || e.event === 'response.incomplete' || e.event === 'error'));
        const usage = await stack.gateway.gate.admin.usage('acme');
        assert.equal(usage.requests, 1);
        assert.ok(usage.inputTokens > 0);
      });
    });
  }

  it('clamps max_output_tokens to the model limit and says so; drops what a translated route cannot take', async () => {
    const raw = await postJson(`${stack.gateway.url}/v1/responses`, { model: 'claude', input: 'hi', max_output_tokens: 100_000, temperature: 1.5, previous_response_id: 'resp_1' }, { authorization: `Bearer ${TEST_KEY}` });
    assert.equal(raw.status, 200);
    assert.equal(raw.headers.get('x-service-clamped-params'), 'temperature=1.5>1,max_output_tokens=100000>64000');
    assert.equal(raw.headers.get('x-service-dropped-params'), 'previous_response_id');
    const sent = stack.anthropic.requests.at(-1)!.body as { max_tokens: number; temperature: number };
    assert.deepEqual([sent.max_tokens, sent.temperature], [64_000, 1]);
  });

  it('sends generationConfig to Gemini with temperature in its own 0..2 range, unclamped', async () => {
    const raw = await postJson(`${stack.gateway.url}/v1/responses`, { model: 'gemini', input: 'hi', temperature: 1.5, max_output_tokens: 50 }, { authorization: `Bearer ${TEST_KEY}` });
    assert.equal(raw.status, 200);
    assert.equal(raw.headers.get('x-service-clamped-params'), null);
    assert.deepEqual((stack.gemini.requests.at(-1)!.body as { generationConfig: unknown }).generationConfig, { temperature: 1.5, maxOutputTokens: 50 });
    assert.equal(stack.gemini.requests.at(-1)!.path, '/v1beta/models/gemini-2.5-pro:generateContent');
  });

  it('answers 400 max_tokens_exceeded for max_output_tokens above 131,072, with no denial headers', async () => {
    const raw = await postJson(`${stack.gateway.url}/v1/responses`, { model: 'gpt', input: 'hi', max_output_tokens: 131_073 }, { authorization: `Bearer ${TEST_KEY}` });
    assert.equal(raw.status, 400);
    assert.equal(raw.body.error.code, 'max_tokens_exceeded');
    assert.equal(raw.body.error.param, 'max_output_tokens');
    assert.equal(raw.headers.get('x-service-reason'), null);
  });

  it('answers errors in shapes 1 and 3: 404 model_not_found, 422 detail list, relayed api_error', async () => {
    await assert.rejects(openai.responses.create({ model: 'gpt-4o', input: 'hi' }), (error: InstanceType<typeof OpenAI.NotFoundError>) => error.status === 404 && error.code === 'model_not_found');
    const invalid = await postJson(`${stack.gateway.url}/v1/responses`, { model: 'gpt' }, { authorization: `Bearer ${TEST_KEY}` });
    assert.equal(invalid.status, 422);
    assert.ok(Array.isArray(invalid.body.detail) && invalid.body.detail[0].loc.includes('input'));
    stack.gemini.failNext({ status: 400, message: 'Invalid JSON payload received.' });
    const relayed = await postJson(`${stack.gateway.url}/v1/responses`, { model: 'gemini', input: 'hi' }, { authorization: `Bearer ${TEST_KEY}` });
    assert.equal(relayed.status, 400);
    assert.equal(relayed.body.error.type, 'api_error');
    assert.equal(relayed.body.error.message, 'Invalid JSON payload received.');
    assert.equal(relayed.body.error.code, 'INVALID_ARGUMENT');
  });

  it('retries a Gemini 503 and answers 200', async () => {
    stack.gemini.failNext({ status: 503 });
    const response = await openai.responses.create({ model: 'gemini', input: 'again' });
    assert.equal(response.status, 'completed');
    assert.equal(stack.gemini.requests.length, 2);
  });
});
