import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { postJson, readSse } from '../../support/gateway.js';
import { SQL_ONLY_KEY, TEST_KEY, startStack } from './gateway-fixture.js';

describe('POST /v1/chat/completions', () => {
  let stack: Awaited<ReturnType<typeof startStack>>;
  let openai: OpenAI;
  beforeEach(async () => {
    stack = await startStack();
    openai = new OpenAI({ baseURL: `${stack.gateway.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
  });
  afterEach(() => stack.close());

  const user = (content: string) => [{ role: 'user' as const, content }];

  it('lists only catalog aliases on GET /v1/models, including ones not routable right now', async () => {
    const models = await openai.models.list();
    assert.deepEqual(models.data.map((m) => m.id).sort(), ['claude', 'claude-with-fallback', 'gpt', 'not-routable']);
  });

  it('answers from an OpenAI route naming the alias, after sending the provider model and key upstream', async () => {
    const completion = await openai.chat.completions.create({ model: 'gpt', messages: user('hello there') });
    assert.equal(completion.model, 'gpt');
    assert.ok(completion.choices[0]?.message.content);
    const upstream = stack.openai.requests.at(-1)!;
    assert.equal((upstream.body as { model: string }).model, 'gpt-4o');
    assert.equal(upstream.headers.authorization, 'Bearer sk-fake-openai');
  });

  it('streams from an OpenAI route and ends with a finish_reason chunk', async () => {
    const stream = await openai.chat.completions.create({ model: 'gpt', messages: user('stream please'), stream: true });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    assert.ok(chunks.every((c) => c.model === 'gpt'));
    assert.equal(chunks.filter((c) => c.choices[0]?.finish_reason).length, 1);
    assert.ok(chunks.every((c) => !c.usage), 'no usage chunk unless the client asked for one');
  });

  it('translates to an Anthropic route: system prompt, multi-turn and stop sequences reach upstream in its format', async () => {
    const completion = await openai.chat.completions.create({
      model: 'claude',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'first' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'second' },
      ],
      stop: ['END'],
      max_tokens: 100,
    });
    assert.equal(completion.model, 'claude');
    assert.equal(completion.object, 'chat.completion');
    assert.ok(completion.choices[0]?.message.content);
    assert.ok(completion.usage && completion.usage.prompt_tokens > 0);
    const sent = stack.anthropic.requests.at(-1)!.body as { model: string; system: string; messages: unknown[]; stop_sequences: string[]; max_tokens: number };
    assert.equal(sent.model, 'claude-sonnet-4-5');
    assert.equal(sent.system, 'Be brief.');
    assert.equal(sent.messages.length, 3);
    assert.deepEqual(sent.stop_sequences, ['END']);
    assert.equal(sent.max_tokens, 100);
  });

  it('streams from an Anthropic route as chat chunks ending with one finish_reason', async () => {
    const stream = await openai.chat.completions.create({ model: 'claude', messages: user('stream from claude'), stream: true });
    let text = '';
    const finishes: string[] = [];
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.choices[0]?.finish_reason) finishes.push(chunk.choices[0].finish_reason);
    }
    assert.ok(text.length > 0);
    assert.deepEqual(finishes, ['stop']);
  });

  it('round-trips a tool call through an Anthropic route', async () => {
    stack.anthropic.reply({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] });
    const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
    const completion = await openai.chat.completions.create({ model: 'claude', messages: user('weather?'), tools, tool_choice: 'required' });
    const call = completion.choices[0]?.message.tool_calls?.[0];
    assert.equal(completion.choices[0]?.finish_reason, 'tool_calls');
    assert.equal(call?.type === 'function' && call.function.name, 'get_weather');
    assert.deepEqual(call?.type === 'function' && JSON.parse(call.function.arguments), { city: 'Paris' });
    const sent = stack.anthropic.requests.at(-1)!.body as { tools: { name: string; input_schema: unknown }[]; tool_choice: unknown };
    assert.equal(sent.tools[0]?.name, 'get_weather');
    assert.deepEqual(sent.tool_choice, { type: 'any' });
  });

  it('drops and clamps what the route cannot take, and says so in headers on the success', async () => {
    const response = await postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'claude', messages: user('hi'), temperature: 1.5, logit_bias: { '50256': -100 } }, { authorization: `Bearer ${TEST_KEY}` });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('x-service-dropped-params'), 'logit_bias');
    assert.equal(response.headers.get('x-service-clamped-params'), 'temperature=1.5>1');
    const sent = stack.anthropic.requests.at(-1)!.body as Record<string, unknown>;
    assert.equal(sent.temperature, 1);
    assert.equal('logit_bias' in sent, false);
  });

  it('sends no adaptation header when nothing was adapted, and does not report a rewritten tool_choice', async () => {
    const response = await postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'claude', messages: user('hi'), temperature: 0.5, tool_choice: 'auto', tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }] }, { authorization: `Bearer ${TEST_KEY}` });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('x-service-dropped-params'), null);
    assert.equal(response.headers.get('x-service-clamped-params'), null);
  });

  it('clamps max_tokens above the model limit but below the hard cap', async () => {
    const response = await postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'gpt', messages: user('hi'), max_tokens: 100_000 }, { authorization: `Bearer ${TEST_KEY}` });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('x-service-clamped-params'), 'max_tokens=100000>16384');
  });

  it('answers 400 max_tokens_exceeded above 131,072 with no denial headers', async () => {
    const response = await postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'gpt', messages: user('hi'), max_tokens: 131_073 }, { authorization: `Bearer ${TEST_KEY}` });
    assert.equal(response.status, 400);
    assert.equal(response.body.error.code, 'max_tokens_exceeded');
    assert.equal(response.headers.get('x-service-reason'), null);
    assert.equal(stack.openai.requests.length, 0);
  });

  it('answers 404 model_not_found with X-Service-Reason unknown_model for a typo and for a raw provider id', async () => {
    for (const model of ['gtp', 'gpt-4o']) {
      const error = await openai.chat.completions.create({ model, messages: user('hi') }).catch((e: unknown) => e);
      assert.ok(error instanceof OpenAI.NotFoundError, model);
      assert.equal(error.code, 'model_not_found');
      assert.equal(error.headers?.get('x-service-reason'), 'unknown_model');
    }
  });

  it('answers 400 model_not_configured for an alias whose provider is disabled, without denial headers', async () => {
    const error = await openai.chat.completions.create({ model: 'not-routable', messages: user('hi') }).catch((e: unknown) => e);
    assert.ok(error instanceof OpenAI.BadRequestError);
    assert.equal(error.code, 'model_not_configured');
    assert.equal(error.headers?.get('x-service-reason'), null);
  });

  it('answers 422 with a detail list for a missing field, a wrong type and an unknown role', async () => {
    const auth = { authorization: `Bearer ${TEST_KEY}` };
    const missing = await postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'gpt' }, auth);
    assert.equal(missing.status, 422);
    assert.deepEqual(missing.body.detail[0].loc, ['body', 'messages']);
    assert.equal(missing.body.detail[0].type, 'missing');
    const wrongType = await postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'gpt', messages: 'hi' }, auth);
    assert.equal(wrongType.status, 422);
    const role = await postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'gpt', messages: [{ role: 'wizard', content: 'hi' }] }, auth);
    assert.equal(role.status, 422);
    assert.deepEqual(role.body.detail[0].loc, ['body', 'messages', 0, 'role']);
  });

  it('answers 422 for a body that is not JSON', async () => {
    const response = await postJson(`${stack.gateway.url}/v1/chat/completions`, '{"model": ', { authorization: `Bearer ${TEST_KEY}` });
    assert.equal(response.status, 422);
    assert.equal(response.body.detail[0].type, 'json_invalid');
  });

  it('answers 400 with a detail body for an invalid image data URL', async () => {
    const response = await postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'gpt', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,%%%' } }] }] }, { authorization: `Bearer ${TEST_KEY}` });
    assert.equal(response.status, 400);
    assert.equal(typeof response.body.detail, 'string');
    assert.equal(stack.openai.requests.length, 0);
  });

  it('answers 401 with a small detail body, no code and WWW-Authenticate for missing, wrong and out-of-scope keys', async () => {
    for (const headers of [{} as Record<string, string>, { authorization: 'Bearer tg-nope-nope-nope' }, { authorization: `Bearer ${SQL_ONLY_KEY}` }, { authorization: 'Basic abc' }]) {
      const response = await postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'gpt', messages: user('hi') }, headers);
      assert.equal(response.status, 401);
      assert.deepEqual(Object.keys(response.body), ['detail']);
      assert.ok(response.headers.get('www-authenticate'));
    }
    const error = await new OpenAI({ baseURL: `${stack.gateway.url}/v1`, apiKey: 'wrong-key-123', maxRetries: 0 }).models.list().catch((e: unknown) => e);
    assert.ok(error instanceof OpenAI.AuthenticationError);
  });

  it('accepts the key as x-api-key too', async () => {
    const response = await postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'gpt', messages: user('hi') }, { 'x-api-key': TEST_KEY });
    assert.equal(response.status, 200);
  });

  it('relays an upstream 400 with type api_error, the provider message and status, without retrying', async () => {
    stack.openai.failNext({ status: 400, times: 1, message: 'Invalid value for messages' });
    const response = await postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'gpt', messages: user('hi') }, { authorization: `Bearer ${TEST_KEY}` });
    assert.equal(response.status, 400);
    assert.equal(response.body.error.type, 'api_error');
    assert.match(response.body.error.message, /Invalid value for messages/);
    assert.equal(stack.openai.requests.length, 1);
    assert.doesNotMatch(response.text, /sk-fake-openai/);
  });

  it('retries transient upstream failures and answers 200 when a retry succeeds', async () => {
    stack.anthropic.failNext({ status: 529, times: 2 });
    const completion = await openai.chat.completions.create({ model: 'claude', messages: user('hi') });
    assert.ok(completion.choices[0]?.message.content);
    assert.equal(stack.anthropic.requests.length, 3);
  });

  it('fails over to the next route when the primary keeps failing', async () => {
    stack.anthropic.failNext({ status: 503, times: 10 });
    const completion = await openai.chat.completions.create({ model: 'claude-with-fallback', messages: user('hi') });
    assert.equal(completion.model, 'claude-with-fallback');
    assert.equal(stack.anthropic.requests.length, 3);
    assert.equal(stack.openai.requests.length, 1);
  });

  it('relays the last transient failure once every route is used up', async () => {
    stack.openai.failNext({ status: 500, times: 10 });
    const response = await postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'gpt', messages: user('hi') }, { authorization: `Bearer ${TEST_KEY}` });
    assert.equal(response.status, 500);
    assert.equal(response.body.error.type, 'api_error');
    assert.equal(stack.openai.requests.length, 3);
  });

  it('answers 502 when the provider cannot be reached', async () => {
    await stack.openai.refuseConnections();
    const response = await postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'gpt', messages: user('hi') }, { authorization: `Bearer ${TEST_KEY}` });
    assert.equal(response.status, 502);
    assert.equal(response.body.error.type, 'api_error');
  });

  it('ends a stream abnormally when upstream drops mid-way: no finish_reason, no [DONE]', async () => {
    stack.openai.dropAfterChunks(2);
    const response = await fetch(`${stack.gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` }, body: JSON.stringify({ model: 'gpt', stream: true, messages: user('a long answer please') }) });
    assert.equal(response.status, 200);
    const { events, broke } = await readSse(response);
    assert.equal(broke, true);
    assert.ok(events.length >= 1);
    assert.ok(events.every((e) => e.data !== '[DONE]' && !(JSON.parse(e.data) as { choices: { finish_reason: unknown }[] }).choices.some((c) => c.finish_reason)));
  });

  for (const stream of [true, false]) {
    it(`aborts the ${stream ? 'streaming' : 'non-streaming'} upstream request when the client disconnects, and does not retry it`, async () => {
      stack.openai.delay(400);
      const controller = new AbortController();
      const pending = fetch(`${stack.gateway.url}/v1/chat/completions`, { method: 'POST', signal: controller.signal, headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` }, body: JSON.stringify({ model: 'gpt', stream, messages: user('hi') }) }).catch(() => undefined);
      while (stack.openai.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      controller.abort();
      await pending;
      const deadline = Date.now() + 2_000;
      while (!stack.openai.requests[0]!.aborted && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.equal(stack.openai.requests[0]!.aborted, true);
      assert.equal(stack.openai.requests.length, 1);
    });
  }

  it('retries an answer cut off mid-body and answers 200 from the retry', async () => {
    stack.openai.cutNextAnswers(1);
    const completion = await openai.chat.completions.create({ model: 'gpt', messages: user('hi') });
    assert.equal(completion.model, 'gpt');
    assert.equal(stack.openai.requests.length, 2);
  });

  it('answers 502 once retries are used up when the provider keeps answering 200 with a body that is not JSON', async () => {
    stack.openai.answerRawNext({ status: 200, body: '<html><body>Gateway timeout</body></html>', times: 3 });
    const response = await postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'gpt', messages: user('hi') }, { authorization: `Bearer ${TEST_KEY}` });
    assert.equal(response.status, 502);
    assert.equal(response.body.error.type, 'api_error');
    assert.match(response.body.error.message, /unreadable/);
    assert.equal(stack.openai.requests.length, 3);
  });

  it('relays an error status whose body is not JSON with the start of that body as the message', async () => {
    stack.openai.answerRawNext({ status: 403, body: 'Forbidden by upstream proxy' });
    const response = await postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'gpt', messages: user('hi') }, { authorization: `Bearer ${TEST_KEY}` });
    assert.equal(response.status, 403);
    assert.equal(response.body.error.type, 'api_error');
    assert.equal(response.body.error.message, 'Forbidden by upstream proxy');
  });

  it('answers a normal JSON error when the stream fails before any output', async () => {
    stack.openai.failNext({ status: 400, times: 1 });
    const response = await postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'gpt', stream: true, messages: user('hi') }, { authorization: `Bearer ${TEST_KEY}` });
    assert.equal(response.status, 400);
    assert.match(response.headers.get('content-type') ?? '', /application\/json/);
  });

  it('passes through to next() for paths it does not serve, and answers 405 on a served path with the wrong method', async () => {
    const unknown = await fetch(`${stack.gateway.url}/v1/unknown`);
    assert.equal(unknown.status, 404);
    const wrong = await fetch(`${stack.gateway.url}/v1/chat/completions`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
    assert.equal(wrong.status, 405);
    assert.equal(wrong.headers.get('allow'), 'POST');
  });
});
