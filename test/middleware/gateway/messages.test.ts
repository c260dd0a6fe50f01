import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { postJson, readSse } from '../../support/gateway.js';
import { TEST_KEY, startStack } from './gateway-fixture.js';

describe('POST /v1/messages', () => {
  let stack: Awaited<ReturnType<typeof startStack>>;
  let anthropic: Anthropic;
  beforeEach(async () => {
    stack = await startStack();
    anthropic = new Anthropic({ baseURL: stack.gateway.url, apiKey: TEST_KEY, maxRetries: 0 });
  });
  afterEach(() => stack.close());

  const ask = (content: string) => ({ max_tokens: 256, messages: [{ role: 'user' as const, content }] });

  it('relays an Anthropic route natively, naming the alias, with the provider key and version upstream', async () => {
    const message = await anthropic.messages.create({ model: 'claude', ...ask('hello') });
    assert.equal(message.model, 'claude');
    assert.equal(message.content[0]?.type, 'text');
    const upstream = stack.anthropic.requests.at(-1)!;
    assert.equal((upstream.body as { model: string }).model, 'claude-sonnet-4-5');
    assert.equal(upstream.headers['x-api-key'], 'sk-fake-anthropic');
    assert.ok(upstream.headers['anthropic-version']);
  });

  it('streams an Anthropic route with the SDK and ends with message_delta then message_stop', async () => {
    const stream = anthropic.messages.stream({ model: 'claude', ...ask('stream please') });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    const final = await stream.finalMessage();
    assert.deepEqual(types.slice(-2), ['message_delta', 'message_stop']);
    assert.equal(final.model, 'claude');
    assert.equal(final.stop_reason, 'end_turn');
  });

  it('translates to an OpenAI route: the SDK gets an Anthropic message, upstream got a chat request', async () => {
    const message = await anthropic.messages.create({ model: 'gpt', system: 'Be brief.', ...ask('hello gpt') });
    assert.equal(message.type, 'message');
    assert.equal(message.model, 'gpt');
    assert.ok(message.usage.input_tokens > 0);
    const sent = stack.openai.requests.at(-1)!.body as { model: string; messages: { role: string }[] };
    assert.equal(sent.model, 'gpt-4o');
    assert.deepEqual(sent.messages.map((m) => m.role), ['system', 'user']);
  });

  it('streams from an OpenAI route as Anthropic events the SDK assembles', async () => {
    const stream = anthropic.messages.stream({ model: 'gpt', ...ask('stream from gpt') });
    const final = await stream.finalMessage();
    assert.equal(final.model, 'gpt');
    assert.equal(final.stop_reason, 'end_turn');
    assert.ok(final.content[0]?.type === 'text' && final.content[0].text.length > 0);
    assert.ok(final.usage.output_tokens > 0);
  });

  it('round-trips a tool call through an OpenAI route', async () => {
    stack.openai.reply({ toolCalls: [{ name: 'lookup', arguments: { q: 'tollgate' } }] });
    const message = await anthropic.messages.create({
      model: 'gpt',
      ...ask('look it up'),
      tools: [{ name: 'lookup', input_schema: { type: 'object', properties: { q: { type: 'string' } } } }],
    });
    const block = message.content.find((b) => b.type === 'tool_use');
    assert.equal(message.stop_reason, 'tool_use');
    assert.equal(block?.type === 'tool_use' && block.name, 'lookup');
    assert.deepEqual(block?.type === 'tool_use' && block.input, { q: 'tollgate' });
  });

  it('answers every error in the Anthropic envelope with no code and none of the denial headers', async () => {
    const notFound = await postJson(`${stack.gateway.url}/v1/messages`, { model: 'nope', ...ask('hi') }, { 'x-api-key': TEST_KEY });
    assert.equal(notFound.status, 404);
    assert.deepEqual(notFound.body, { type: 'error', error: { type: 'not_found_error', message: notFound.body.error.message } });
    assert.equal(notFound.headers.get('x-service-reason'), null);
    const invalid = await postJson(`${stack.gateway.url}/v1/messages`, { model: 'claude', messages: [] }, { 'x-api-key': TEST_KEY });
    assert.equal(invalid.status, 422);
    assert.equal(invalid.body.type, 'error');
    assert.equal(invalid.body.error.type, 'invalid_request_error');
    const capped = await postJson(`${stack.gateway.url}/v1/messages`, { model: 'claude', max_tokens: 200_000, messages: [{ role: 'user', content: 'hi' }] }, { 'x-api-key': TEST_KEY });
    assert.equal(capped.status, 400);
    assert.equal(capped.body.type, 'error');
    assert.equal('code' in capped.body.error, false);
  });

  it('maps errors to the SDK error classes', async () => {
    const error = await anthropic.messages.create({ model: 'nope', ...ask('hi') }).catch((e: unknown) => e);
    assert.ok(error instanceof Anthropic.NotFoundError);
    const auth = await new Anthropic({ baseURL: stack.gateway.url, apiKey: 'bad-key-123', maxRetries: 0 }).messages.create({ model: 'claude', ...ask('hi') }).catch((e: unknown) => e);
    assert.ok(auth instanceof Anthropic.AuthenticationError);
  });

  it('relays an upstream overload in the Anthropic envelope with type api_error and the provider status', async () => {
    stack.anthropic.failNext({ status: 529, times: 10 });
    const response = await postJson(`${stack.gateway.url}/v1/messages`, { model: 'claude', ...ask('hi') }, { 'x-api-key': TEST_KEY });
    assert.equal(response.status, 529);
    assert.equal(response.body.error.type, 'api_error');
  });

  it('never closes a failed stream with a normal message_delta/message_stop', async () => {
    // Past the first delta: the three events before it are held until output comes (a failure there fails over).
    stack.anthropic.dropAfterChunks(5);
    const response = await fetch(`${stack.gateway.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': TEST_KEY }, body: JSON.stringify({ model: 'claude', stream: true, ...ask('a long answer') }) });
    const { events, broke } = await readSse(response);
    assert.equal(broke, true);
    assert.ok(events.length > 0);
    assert.ok(!events.some((e) => e.event === 'message_stop' || e.event === 'message_delta'));
  });

  it('never closes a failed translated stream with message_stop either', async () => {
    stack.openai.dropAfterChunks(2);
    const response = await fetch(`${stack.gateway.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': TEST_KEY }, body: JSON.stringify({ model: 'gpt', stream: true, ...ask('a long answer') }) });
    const { events, broke } = await readSse(response);
    assert.equal(broke, true);
    assert.ok(!events.some((e) => e.event === 'message_stop'));
  });
});
