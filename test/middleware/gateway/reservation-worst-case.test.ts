import assert from 'node:assert/strict';
import type { ConfigInput } from '@tollgate/middleware';
import { startGateway, type RunningGateway } from '../../support/gateway.js';
import { chatCompletion, sendJson, startScripted } from '../../support/scripted-provider.js';

const KEY = 'tg-hunt-acme-key-0123456789abcdefXYZ';

/** Words as tokens; the provider honours the output budget exactly, per choice, like the real ones. */
function words(count: number) {
  return Array.from({ length: count }, (_, i) => `w${i}`).join(' ');
}

describe('reservations hold the worst case the provider may really produce', function () {
  this.timeout(20_000);
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  async function stack() {
    // OpenAI-like: honours max_tokens (or max_completion_tokens) per choice, n choices.
    const openai = await startScripted((_req, res, body) => {
      const budget = body.max_completion_tokens ?? body.max_tokens ?? 50;
      const n = body.n ?? 1;
      const each = Math.min(50, budget);
      sendJson(res, 200, chatCompletion(Array.from({ length: n }, () => words(each)), { prompt_tokens: 3, completion_tokens: each * n, total_tokens: 3 + each * n }));
    });
    // Anthropic-like: honours max_tokens.
    const anthropic = await startScripted((_req, res, body) => {
      const each = Math.min(50, body.max_tokens);
      sendJson(res, 200, { id: 'msg_1', type: 'message', role: 'assistant', model: body.model, content: [{ type: 'text', text: words(each) }], stop_reason: each < 50 ? 'max_tokens' : 'end_turn', stop_sequence: null, usage: { input_tokens: 3, output_tokens: each } });
    }, '');
    closers.push(() => openai.close(), () => anthropic.close());
    const config: ConfigInput = {
      defaultCatalog: false,
      keys: [{ key: KEY, org: 'acme' }],
      // 1 USD per output token; 10 USD in the wallet, no overdraft: the wallet must never end below 0.
      organizations: { acme: { wallet: 10, overdraft: 0 } },
      providers: {
        openai: { kind: 'openai', baseUrl: openai.baseUrl, apiKey: 'sk-x', retryBaseMs: 1 },
        anthropic: { kind: 'anthropic', baseUrl: anthropic.baseUrl, apiKey: 'sk-y', retryBaseMs: 1 },
      },
      models: {
        dollar: { routes: [{ provider: 'openai', model: 'gpt-4o' }], price: { input: 0, output: 1_000_000 } },
        'dollar-claude': { routes: [{ provider: 'anthropic', model: 'claude-haiku-4-5' }], price: { input: 0, output: 1_000_000 }, maxOutputTokens: 1000 },
      },
    };
    const gateway: RunningGateway = await startGateway(config);
    closers.push(() => gateway.close());
    return gateway;
  }

  const chat = (url: string, body: object) =>
    fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, body: JSON.stringify(body) }).then(async (r) => ({ status: r.status, headers: r.headers, body: (await r.json()) as any }));

  it('n > 1 on an OpenAI route: the wallet (10 USD, no overdraft) never ends below 0', async () => {
    const gateway = await stack();
    // max_tokens 5 reserves 5 USD; 10 choices of 5 tokens cost 50 USD.
    const answer = await chat(gateway.url, { model: 'dollar', max_tokens: 5, n: 10, messages: [{ role: 'user', content: 'hi' }] });
    const usage = await gateway.gate.admin.usage('acme');
    assert.ok(answer.status === 402 || usage.wallet >= 0, `status ${answer.status}, cost header ${answer.headers.get('x-service-cost-usd')}, wallet ended at ${usage.wallet}`);
  });

  it('max_tokens and max_completion_tokens both set on an Anthropic route: the wallet never ends below 0', async () => {
    const gateway = await stack();
    // max_tokens 1 is what admission reserves (1 USD); the route sends max_completion_tokens (1000) upstream.
    const answer = await chat(gateway.url, { model: 'dollar-claude', max_tokens: 1, max_completion_tokens: 1000, messages: [{ role: 'user', content: 'hi' }] });
    const usage = await gateway.gate.admin.usage('acme');
    assert.ok(answer.status === 402 || usage.wallet >= 0, `status ${answer.status}, cost header ${answer.headers.get('x-service-cost-usd')}, wallet ended at ${usage.wallet}`);
  });
  it('a Responses client that sets no output limit on an OpenAI route: the alias\'s budget is sent, so the provider\'s own default (its maximum) cannot take the wallet below 0', async () => {
    // OpenAI-like Responses: without max_output_tokens it writes its own default, 50 tokens (50 USD here).
    const responses = await startScripted((_req, res, body) => {
      const each = Math.min(50, body.max_output_tokens ?? 50);
      sendJson(res, 200, { id: 'resp_1', object: 'response', status: 'completed', model: body.model, output: [{ type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: words(each), annotations: [] }] }], usage: { input_tokens: 3, output_tokens: each, total_tokens: 3 + each } });
    });
    closers.push(() => responses.close());
    const gateway = await startGateway({
      defaultCatalog: false,
      keys: [{ key: KEY, org: 'acme' }],
      organizations: { acme: { wallet: 10, overdraft: 0 } },
      // responsesApi: Responses relayed natively, as to OpenAI itself (an OpenAI-compatible server gets it through chat).
      providers: { openai: { kind: 'openai', baseUrl: responses.baseUrl, apiKey: 'sk-x', retryBaseMs: 1, responsesApi: true } },
      // 1 USD per output token; the alias's budget, 8 tokens, is what a request without a limit reserves.
      models: { dollar: { routes: [{ provider: 'openai', model: 'gpt-4o' }], price: { input: 0, output: 1_000_000 }, maxOutputTokens: 8 } },
    });
    closers.push(() => gateway.close());
    const answer = await fetch(`${gateway.url}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, body: JSON.stringify({ model: 'dollar', input: 'hi' }) });
    assert.equal(answer.status, 200);
    assert.equal(responses.bodies.at(-1).max_output_tokens, 8);
    assert.equal(answer.headers.get('x-service-cost-usd'), '8.000000');
    assert.equal((await gateway.gate.admin.usage('acme')).wallet, 2);
  });
});
