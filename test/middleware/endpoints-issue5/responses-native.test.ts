import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startFakeOpenAI } from '../../fakes/index.js';
import { readSse, startGateway, TEST_KEY, type RunningGateway } from '../../support/gateway.js';

describe('POST /v1/responses relayed natively to a provider with responsesApi: true', () => {
  let upstream: Awaited<ReturnType<typeof startFakeOpenAI>>;
  let gateway: RunningGateway;
  let openai: OpenAI;
  beforeEach(async () => {
    upstream = await startFakeOpenAI();
    gateway = await startGateway({
      defaultCatalog: false,
      keys: [{ key: TEST_KEY, org: 'acme' }],
      organizations: { acme: { wallet: 100 } },
      providers: { openai: { kind: 'openai', baseUrl: upstream.baseUrl, apiKey: 'sk-fake-openai', responsesApi: true, retryBaseMs: 1 } },
      models: { gpt: { routes: [{ provider: 'openai', model: 'gpt-4o' }], price: { input: 2.5, output: 10 }, maxOutputTokens: 16_384 } },
    });
    openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
  });
  afterEach(async () => {
    await gateway.close();
    await upstream.close();
  });

  it('relays to the provider /responses endpoint and names the alias in the answer', async () => {
    const response = await openai.responses.create({ model: 'gpt', input: 'hello native', instructions: 'Be brief.' });
    assert.equal(response.model, 'gpt');
    assert.equal(response.output_text, 'Echo: hello native');
    const sent = upstream.requests.at(-1)!;
    assert.equal(sent.path, '/v1/responses');
    assert.equal((sent.body as { model: string }).model, 'gpt-4o');
    const usage = await gateway.gate.admin.usage('acme');
    assert.deepEqual([usage.inputTokens, usage.outputTokens], [4, 3]);
  });

  it('answers a background request in the foreground, completed and billed, naming background as dropped', async () => {
    // OpenAI answers a background request at once (queued, no usage) and generates afterwards: nothing of Tollgate's
    // would meter that output, and Tollgate serves no GET /v1/responses/{id} to fetch it.
    const { data, response } = await openai.responses.create({ model: 'gpt', input: 'hello background', background: true }).withResponse();
    assert.equal(data.status, 'completed');
    assert.equal(data.output_text, 'Echo: hello background');
    assert.equal(response.headers.get('x-service-dropped-params'), 'background');
    assert.equal('background' in (upstream.requests.at(-1)!.body as object), false, 'not sent upstream');
    const usage = await gateway.gate.admin.usage('acme');
    assert.deepEqual([usage.inputTokens, usage.outputTokens], [2, 3], 'the fake counts words');
  });

  it('streams the native event sequence to response.completed through the SDK', async () => {
    const stream = openai.responses.stream({ model: 'gpt', input: 'stream native' });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    const final = await stream.finalResponse();
    assert.equal(types[0], 'response.created');
    assert.equal(types.at(-1), 'response.completed');
    assert.equal(final.model, 'gpt');
    assert.equal(final.output_text, 'Echo: stream native');
  });

  it('ends a broken native stream abnormally, without response.completed, and bills what was delivered', async () => {
    upstream.reply({ text: Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ') });
    upstream.dropAfterChunks(8);
    const response = await fetch(`${gateway.url}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` }, body: JSON.stringify({ model: 'gpt', input: 'long', stream: true }) });
    const { events, broke } = await readSse(response);
    assert.equal(broke, true);
    assert.ok(events.length > 0 && !events.some((e) => e.event === 'response.completed'));
    const usage = await gateway.gate.admin.usage('acme');
    assert.ok(usage.outputTokens > 0 && usage.outputTokens < 30);
  });
});
