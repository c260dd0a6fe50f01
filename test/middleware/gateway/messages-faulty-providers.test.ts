import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { countTokens } from '../../../packages/middleware/src/tokenize/index.js';
import { startFakeOpenAI, startFakeGemini, startFakeBedrock, FAKE_BEDROCK_CREDENTIALS, FAKE_BEDROCK_REGION } from '../../fakes/index.js';
import { TEST_KEY, startGateway, postJson, readSse, type RunningGateway } from '../../support/gateway.js';
import { sendEvents, startScripted } from '../../support/scripted-provider.js';

const headers = { 'x-api-key': TEST_KEY };

describe('hostile content blocks on translated /v1/messages routes', function () {
  this.timeout(60000);
  let fakes: any;
  let gw: RunningGateway;
  before(async () => {
    fakes = { openai: await startFakeOpenAI(), gemini: await startFakeGemini(), bedrock: await startFakeBedrock() };
    gw = await startGateway({
      defaultCatalog: false,
      keys: [{ key: TEST_KEY, org: 'acme' }],
      organizations: { acme: { wallet: 100 } },
      providers: {
        openai: { kind: 'openai', baseUrl: fakes.openai.baseUrl, apiKey: 'sk-fake-openai', retryBaseMs: 1, maxRetries: 0 },
        gemini: { kind: 'gemini', baseUrl: fakes.gemini.baseUrl, apiKey: 'fake-gemini-key', retryBaseMs: 1, maxRetries: 0 },
        aws: { kind: 'bedrock', baseUrl: fakes.bedrock.baseUrl, region: FAKE_BEDROCK_REGION, credentials: { ...FAKE_BEDROCK_CREDENTIALS }, retryBaseMs: 1, maxRetries: 0 },
      },
      models: {
        gpt: { routes: [{ provider: 'openai', model: 'gpt-4o' }], price: { input: 2.5, output: 10 } },
        gemini: { routes: [{ provider: 'gemini', model: 'gemini-2.5-flash' }], price: { input: 0.3, output: 2.5 } },
        bedrock: { routes: [{ provider: 'aws', model: 'anthropic.claude-3-5-sonnet-20240620-v1:0' }], price: { input: 3, output: 15 } },
      },
    }, { logger: { info() {}, error() {} } });
  });
  after(async () => {
    await gw.close();
    for (const fake of Object.values(fakes)) await (fake as { close(): Promise<void> }).close();
  });

  const hostile: Record<string, unknown[]> = {
    'an image block without source': [{ type: 'image' }],
    'an image block whose source is null': [{ type: 'image', source: null }],
    'a tool_result whose content is a number': [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 5 }],
    'a tool_result whose content is an object': [{ type: 'tool_result', tool_use_id: 'toolu_1', content: { a: 1 } }],
    'a tool_result whose content array holds null': [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [null] }],
  };
  for (const [what, content] of Object.entries(hostile)) {
    for (const model of ['gpt', 'gemini', 'bedrock']) {
      it(`${what} on the ${model} route answers a 4xx in the Anthropic envelope, not 500`, async () => {
        const r = await postJson(`${gw.url}/v1/messages`, { model, max_tokens: 32, messages: [{ role: 'user', content }] }, headers);
        assert.ok(r.status >= 400 && r.status < 500, `status ${r.status}: ${r.text}`);
        assert.equal(r.body.type, 'error');
        assert.equal(r.body.error.type, 'invalid_request_error');
      });
    }
  }
});

describe('faulty providers on /v1/messages', function () {
  this.timeout(60000);
  let up: Awaited<ReturnType<typeof startScripted>>;
  let gw: RunningGateway;
  let org = 0;
  let name = '';
  beforeEach(async () => {
    up = await startScripted(() => undefined, '');
    name = `o${++org}`;
    gw = await startGateway({
      defaultCatalog: false,
      keys: [{ key: TEST_KEY, org: name }],
      organizations: { [name]: { wallet: 100 } },
      providers: {
        openai: { kind: 'openai', baseUrl: `${up.baseUrl}/v1`, apiKey: 'sk-fake-openai', retryBaseMs: 1, maxRetries: 0, timeoutMs: 5000 },
        gemini: { kind: 'gemini', baseUrl: `${up.baseUrl}/v1beta`, apiKey: 'fake-gemini-key', retryBaseMs: 1, maxRetries: 0, timeoutMs: 5000 },
        anthropic: { kind: 'anthropic', baseUrl: up.baseUrl, apiKey: 'sk-fake-anthropic', retryBaseMs: 1, maxRetries: 0, timeoutMs: 5000 },
      },
      models: {
        gpt: { routes: [{ provider: 'openai', model: 'gpt-4o' }], price: { input: 2.5, output: 10 } },
        gemini: { routes: [{ provider: 'gemini', model: 'gemini-2.5-flash' }], price: { input: 0.3, output: 2.5 } },
        claude: { routes: [{ provider: 'anthropic', model: 'claude-sonnet-4-5' }], price: { input: 3, output: 15 } },
      },
    }, { logger: { info() {}, error() {} } });
  });
  afterEach(async () => {
    await gw.close();
    await up.close();
  });

  const malformed: Record<string, [string, string]> = {
    'an OpenAI 200 whose body is an error object': ['gpt', '{"error":{"message":"boom","type":"server_error"}}'],
    'an OpenAI 200 whose body is {}': ['gpt', '{}'],
    'an OpenAI 200 whose choice has no message': ['gpt', '{"id":"chatcmpl-1","choices":[{"finish_reason":"stop"}]}'],
    'an OpenAI 200 without an id': ['gpt', '{"choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}'],
    'a Gemini 200 whose body is null': ['gemini', 'null'],
    'a Gemini 200 whose parts are not an array': ['gemini', '{"candidates":[{"content":{"parts":5},"finishReason":"STOP"}]}'],
  };
  for (const [what, [model, answer]] of Object.entries(malformed)) {
    it(`${what} answers 502 api_error (an unreadable upstream answer), not 500`, async () => {
      up.set((_q, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(answer));
      const r = await postJson(`${gw.url}/v1/messages`, { model, max_tokens: 32, messages: [{ role: 'user', content: 'hi' }] }, headers);
      assert.equal(r.status, 502, r.text);
      assert.deepEqual(Object.keys(r.body), ['type', 'error']);
      assert.equal(r.body.error.type, 'api_error');
      assert.equal((await gw.gate.admin.usage(name)).inFlight, 0);
    });
  }

  const start = (usage: object | undefined) => ({ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], stop_reason: null, stop_sequence: null, ...(usage ? { usage } : {}) } });

  it('extended-thinking output streamed before the client disconnects is billed (native Anthropic route)', async () => {
    const thinking = 'Let me think about this step by step, weighing every option. '.repeat(150);
    let upstreamClosed!: () => void;
    const closed = new Promise<void>((resolve) => (upstreamClosed = resolve));
    up.set((_q, res) => {
      res.on('close', () => upstreamClosed());
      sendEvents(res, [start({ input_tokens: 10, output_tokens: 1 }), { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
        ...thinking.match(/.{1,120}/g)!.map((t) => ({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: t } }))], { end: false });
      // the model keeps thinking; the client leaves before message_delta
    });
    const client = new Anthropic({ baseURL: gw.url, apiKey: TEST_KEY, maxRetries: 0 });
    const stream = client.messages.stream({ model: 'claude', max_tokens: 16000, thinking: { type: 'enabled', budget_tokens: 10000 }, messages: [{ role: 'user', content: 'hi' }] });
    let received = '';
    stream.on('thinking', (delta) => {
      received += delta;
      if (received.length >= thinking.length) stream.abort();
    });
    await stream.done().catch(() => undefined);
    await closed;
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(received, thinking);
    const usage = await gw.gate.admin.usage(name);
    assert.equal(usage.inFlight, 0);
    assert.ok(usage.outputTokens >= countTokens(thinking), `billed ${usage.outputTokens} output tokens for ${countTokens(thinking)} thinking tokens delivered`);
  });

  it('a native Anthropic stream that reports no usage bills the delivered output by the tokenizer', async () => {
    const text = 'Here is a fairly long answer that the client receives in full. '.repeat(20);
    up.set((_q, res) => sendEvents(res, [start(undefined), { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }, { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null } }, { type: 'message_stop' }]));
    const r = await fetch(`${gw.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ model: 'claude', max_tokens: 1000, stream: true, messages: [{ role: 'user', content: 'hi' }] }) });
    const { events, broke } = await readSse(r);
    assert.equal(broke, false);
    const delivered = events.map((e) => JSON.parse(e.data)).filter((d) => d.type === 'content_block_delta').map((d) => d.delta.text).join('');
    assert.equal(delivered, text);
    assert.equal(events.at(-1)!.event, 'message_stop');
    const usage = await gw.gate.admin.usage(name);
    assert.equal(usage.requests, 1);
    assert.equal(usage.outputTokens, countTokens(text), 'the delivered output is billed (README "What is billed")');
  });

  it('a native stream whose provider keeps the connection open after message_stop ends for the client at message_stop (no hang)', async () => {
    const text = 'Hello there';
    up.set((_q, res) => {
      sendEvents(res, [start({ input_tokens: 10, output_tokens: 1 }), { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }, { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 3 } }, { type: 'message_stop' }], { end: false });
      // a proxy's keep-alive comments: the body never ends (bounded only by relay.attemptDeadlineMs, 30 min)
      const timer = setInterval(() => res.write(': keep-alive\n\n'), 200);
      res.on('close', () => clearInterval(timer));
    });
    const client = new Anthropic({ baseURL: gw.url, apiKey: TEST_KEY, maxRetries: 0 });
    const stream = client.messages.stream({ model: 'claude', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
    const hung = new Promise((_, reject) => setTimeout(() => reject(new Error('the stream did not end within 5 s of message_stop')), 5000));
    try {
      const final = (await Promise.race([stream.finalMessage(), hung])) as Anthropic.Message;
      assert.equal(final.stop_reason, 'end_turn');
      assert.equal((final.content[0] as Anthropic.TextBlock).text, text);
    } finally {
      stream.abort();
    }
    const usage = await gw.gate.admin.usage(name);
    assert.deepEqual([usage.requests, usage.outputTokens, usage.inFlight], [1, 3, 0]);
  });
});
