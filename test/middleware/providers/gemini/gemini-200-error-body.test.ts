import assert from 'node:assert/strict';
import type { ConfigInput } from '@tollgate/middleware';
import { startGateway, type RunningGateway } from '../../../support/gateway.js';
import { chatCompletion, sendJson, startScripted } from '../../../support/scripted-provider.js';

const KEY = 'tg-hunt-acme-key-0123456789abcdefXYZ';

describe('Gemini answering HTTP 200 with a body that is not a generateContent answer', function () {
  this.timeout(30_000);
  let gateway: RunningGateway;
  let answer = 'null';
  const closers: (() => Promise<void>)[] = [];
  before(async () => {
    const gemini = await startScripted((_q, res) => sendJson(res, 200, answer), '/v1beta');
    const good = await startScripted((_q, res) => sendJson(res, 200, chatCompletion('fallback answer', { prompt_tokens: 1, completion_tokens: 2 })));
    closers.push(() => gemini.close(), () => good.close());
    const config: ConfigInput = {
      defaultCatalog: false,
      keys: [{ key: KEY, org: 'acme' }],
      organizations: { acme: { wallet: 100 } },
      providers: {
        google: { kind: 'gemini', baseUrl: gemini.baseUrl, apiKey: 'g', maxRetries: 0 },
        good: { kind: 'openai', baseUrl: good.baseUrl, apiKey: 'sk-z', maxRetries: 0 },
      },
      models: {
        gemini: { routes: [{ provider: 'google', model: 'gemini-2.5-pro' }], price: { input: 1, output: 1 }, maxOutputTokens: 100 },
        'gemini-then-good': { routes: [{ provider: 'google', model: 'gemini-2.5-pro' }, { provider: 'good', model: 'gpt-4o' }], price: { input: 1, output: 1 }, maxOutputTokens: 100 },
      },
    };
    gateway = await startGateway(config, { logger: { info() {}, error() {} } });
  });
  after(async () => {
    await gateway.close();
    for (const close of closers) await close();
  });

  const post = (path: string, body: object) => fetch(`${gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, body: JSON.stringify(body) }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

  it('a Google error object on a 200 is 502 api_error on /v1/chat/completions, not a 200 content_filter answer', async () => {
    answer = '{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}';
    const r = await post('/v1/chat/completions', { model: 'gemini', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(r.status, 502, JSON.stringify(r.body));
    assert.equal(r.body.error.type, 'api_error');
  });

  it('an empty object on a 200 is 502 on /v1/messages, not an empty end_turn/refusal answer', async () => {
    answer = '{}';
    const r = await post('/v1/messages', { model: 'gemini', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(r.status, 502, JSON.stringify(r.body));
  });

  it('candidates of the wrong type on a 200 is 502 api_error, not 500', async () => {
    answer = '{"candidates":[{"content":{"parts":"oops"},"finishReason":"STOP"}]}';
    const r = await post('/v1/chat/completions', { model: 'gemini', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(r.status, 502, JSON.stringify(r.body));
    assert.equal(r.body.error.type, 'api_error');
  });

  it('a Google error object on a 200 on the first route fails over to the second route', async () => {
    answer = '{"error":{"code":503,"message":"overloaded","status":"UNAVAILABLE"}}';
    const r = await post('/v1/chat/completions', { model: 'gemini-then-good', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.choices[0].message.content, 'fallback answer');
  });
});
