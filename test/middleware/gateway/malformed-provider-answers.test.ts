import assert from 'node:assert/strict';
import type { ConfigInput } from '@tollgate/middleware';
import { startGateway, type RunningGateway } from '../../support/gateway.js';
import { chatCompletion, sendJson, startScripted } from '../../support/scripted-provider.js';

const KEY = 'tg-hunt-acme-key-0123456789abcdefXYZ';

/**
 * A provider answering 200 with JSON that is not its wire format's answer (a proxy's error object, a null, a
 * message without content) must not be an internal error (500): it is the provider's failure (502 api_error),
 * and, like any unreadable answer, one that fails over to the next route.
 */
describe('a malformed 200 answer from a provider', function () {
  this.timeout(30_000);
  let gateway: RunningGateway;
  let answer = 'null';
  const closers: (() => Promise<void>)[] = [];
  before(async () => {
    const bad = (_q: any, res: any) => sendJson(res, 200, answer);
    const openaiCompatible = await startScripted(bad);
    const anthropic = await startScripted(bad, '');
    const gemini = await startScripted(bad, '/v1beta');
    const good = await startScripted((_q, res) => sendJson(res, 200, chatCompletion('fallback answer', { prompt_tokens: 1, completion_tokens: 2 })));
    closers.push(() => openaiCompatible.close(), () => anthropic.close(), () => gemini.close(), () => good.close());
    const config: ConfigInput = {
      defaultCatalog: false,
      keys: [{ key: KEY, org: 'acme' }],
      organizations: { acme: { wallet: 100 } },
      providers: {
        local: { kind: 'openai', baseUrl: openaiCompatible.baseUrl, apiKey: 'sk-x', maxRetries: 0 },
        anthropic: { kind: 'anthropic', baseUrl: anthropic.baseUrl, apiKey: 'sk-y', maxRetries: 0 },
        google: { kind: 'gemini', baseUrl: gemini.baseUrl, apiKey: 'g', maxRetries: 0 },
        good: { kind: 'openai', baseUrl: good.baseUrl, apiKey: 'sk-z', maxRetries: 0 },
        // OpenAI's own Responses API, relayed natively.
        native: { kind: 'openai', baseUrl: openaiCompatible.baseUrl, apiKey: 'sk-w', maxRetries: 0, responsesApi: true },
      },
      models: {
        local: { routes: [{ provider: 'local', model: 'llama' }], price: { input: 1, output: 1 }, maxOutputTokens: 100 },
        claude: { routes: [{ provider: 'anthropic', model: 'claude-x' }], price: { input: 1, output: 1 }, maxOutputTokens: 100 },
        gemini: { routes: [{ provider: 'google', model: 'gemini-2.5-pro' }], price: { input: 1, output: 1 }, maxOutputTokens: 100 },
        native: { routes: [{ provider: 'native', model: 'gpt-4o' }], price: { input: 1, output: 1 }, maxOutputTokens: 100 },
        'local-then-good': { routes: [{ provider: 'local', model: 'llama' }, { provider: 'good', model: 'gpt-4o' }], price: { input: 1, output: 1 }, maxOutputTokens: 100 },
        'claude-then-good': { routes: [{ provider: 'anthropic', model: 'claude-x' }, { provider: 'good', model: 'gpt-4o' }], price: { input: 1, output: 1 }, maxOutputTokens: 100 },
      },
    };
    gateway = await startGateway(config, { logger: { info() {}, error() {} } });
  });
  after(async () => {
    await gateway.close();
    for (const close of closers) await close();
  });

  const post = (path: string, body: object) => fetch(`${gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, body: JSON.stringify(body) }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

  it('Anthropic route answering 200 with content null: /v1/chat/completions is 502 api_error, not 500', async () => {
    answer = '{"id":"m","type":"message","role":"assistant","content":null,"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}';
    const r = await post('/v1/chat/completions', { model: 'claude', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(r.status, 502, JSON.stringify(r.body));
    assert.equal(r.body.error.type, 'api_error');
  });

  it('OpenAI-compatible server answering 200 with an error object: translated /v1/responses is 502 api_error, not 500', async () => {
    answer = '{"error":{"message":"model overloaded","type":"server_error"}}';
    const r = await post('/v1/responses', { model: 'local', input: 'hi' });
    assert.equal(r.status, 502, JSON.stringify(r.body));
    assert.equal(r.body.error.type, 'api_error');
  });

  it('Gemini answering 200 with null: /v1/chat/completions is 502 api_error, not 500', async () => {
    answer = 'null';
    const r = await post('/v1/chat/completions', { model: 'gemini', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(r.status, 502, JSON.stringify(r.body));
    assert.equal(r.body.error.type, 'api_error');
  });

  // The native relays (chat on an OpenAI-kind route, messages on Anthropic, responses on OpenAI) passed any JSON on as
  // a 200 answer, billed; a field of the wrong type threw while metering it (500).
  const nativeRelays = [
    { name: 'native chat completions', path: '/v1/chat/completions', body: { model: 'local', messages: [{ role: 'user', content: 'hi' }] }, envelope: 'openai' },
    { name: 'native messages', path: '/v1/messages', body: { model: 'claude', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }, envelope: 'anthropic' },
    { name: 'native responses', path: '/v1/responses', body: { model: 'native', input: 'hi' }, envelope: 'openai' },
  ] as const;
  const notAnswers = {
    'an error object': '{"error":{"message":"model overloaded","type":"server_error"}}',
    "Anthropic's error envelope": '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
    null: 'null',
    'a string': '"hello"',
    'an empty object': '{}',
    'a chat completion without choices': '{"id":"c","object":"chat.completion","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1}}',
    'tool calls that are not a list': '{"id":"c","choices":[{"index":0,"message":{"role":"assistant","tool_calls":"x"},"finish_reason":"tool_calls"}]}',
    'a message whose content is not a list': '{"id":"m","type":"message","content":"x","usage":{"input_tokens":1,"output_tokens":1}}',
    'a response whose output holds null': '{"id":"r","object":"response","output":[null],"usage":{"input_tokens":1,"output_tokens":1}}',
  };
  for (const relay of nativeRelays) {
    for (const [what, text] of Object.entries(notAnswers)) {
      it(`${relay.name}: a 200 of ${what} answers 502 api_error, bills nothing and frees the slot`, async () => {
        answer = text;
        const before = await gateway.gate.admin.usage('acme');
        const r = await post(relay.path, relay.body);
        assert.equal(r.status, 502, JSON.stringify(r.body));
        assert.equal(relay.envelope === 'anthropic' ? (assert.equal(r.body.type, 'error'), r.body.error.type) : r.body.error.type, 'api_error');
        const after = await gateway.gate.admin.usage('acme');
        assert.deepEqual([after.requests - before.requests, after.wallet, after.inFlight], [0, before.wallet, 0]);
      });
    }
  }

  // JSON.parse reads nesting JSON.stringify cannot write back (its call stack): such an answer was billed, then a 500.
  const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
  for (const [relay, text] of [
    [nativeRelays[0], `{"id":"c","choices":[{"index":0,"message":{"role":"assistant","content":"hi","extra":${deep}},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`],
    [nativeRelays[1], `{"id":"m","type":"message","role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{"a":${deep}}}],"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":1}}`],
  ] as const) {
    it(`${relay.name}: a 200 nested deeper than JSON can be written answers 502 api_error and bills nothing, not a billed 500`, async () => {
      answer = text;
      const before = await gateway.gate.admin.usage('acme');
      const r = await post(relay.path, relay.body);
      assert.equal(r.status, 502, JSON.stringify(r.body));
      assert.equal(r.body.error.type, 'api_error');
      const after = await gateway.gate.admin.usage('acme');
      assert.deepEqual([after.requests - before.requests, after.wallet, after.inFlight], [0, before.wallet, 0]);
    });
  }

  it('a 200 error object on a native chat route fails over to the second route', async () => {
    answer = '{"error":{"message":"model overloaded","type":"server_error"}}';
    const r = await post('/v1/chat/completions', { model: 'local-then-good', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.choices[0].message.content, 'fallback answer');
  });

  it('a malformed 200 on the first route fails over to the second', async () => {
    answer = '{"id":"m","type":"message","role":"assistant","content":null,"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}';
    const r = await post('/v1/chat/completions', { model: 'claude-then-good', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.choices[0].message.content, 'fallback answer');
  });
});
