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

  /** An OpenAI-like chat server that writes 50 tokens unless told fewer, recording what it was sent. */
  async function chatServerWithOwnDefault(refuseMaxTokens = false) {
    const server = await startScripted((_req, res, body) => {
      // OpenAI's reasoning models refuse the older name, with this error.
      if (refuseMaxTokens && 'max_tokens' in body) return sendJson(res, 400, { error: { message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", type: 'invalid_request_error', param: 'max_tokens', code: 'unsupported_parameter' } });
      const each = Math.min(50, body.max_completion_tokens ?? body.max_tokens ?? 50);
      sendJson(res, 200, chatCompletion([words(each)], { prompt_tokens: 3, completion_tokens: each, total_tokens: 3 + each }));
    });
    closers.push(() => server.close());
    return server;
  }

  async function gatewayOn(baseUrl: string, provider: Record<string, unknown> = {}) {
    const gateway = await startGateway({
      defaultCatalog: false,
      keys: [{ key: KEY, org: 'acme' }],
      organizations: { acme: { wallet: 10, overdraft: 0 } },
      providers: { openai: { kind: 'openai', baseUrl, apiKey: 'sk-x', retryBaseMs: 1, ...provider } },
      // 1 USD per output token; the alias's budget, 8 tokens, is what a request without a limit reserves.
      models: { dollar: { routes: [{ provider: 'openai', model: 'o4-mini' }], price: { input: 0, output: 1_000_000 }, maxOutputTokens: 8 } },
    });
    closers.push(() => gateway.close());
    return gateway;
  }

  it('a chat client that sets no output limit on an OpenAI-compatible server: the alias\'s budget is sent as max_tokens, so the server\'s own default cannot take the wallet below 0', async () => {
    const server = await chatServerWithOwnDefault();
    const gateway = await gatewayOn(server.baseUrl);
    const answer = await chat(gateway.url, { model: 'dollar', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(answer.status, 200);
    assert.equal(server.bodies.at(-1).max_tokens, 8);
    assert.equal(answer.headers.get('x-service-cost-usd'), '8.000000');
    assert.equal((await gateway.gate.admin.usage('acme')).wallet, 2);
  });

  it('a chat client that sets no output limit, max_completion_tokens chosen for the provider: the budget is sent in that field alone', async () => {
    const server = await chatServerWithOwnDefault(true);
    const gateway = await gatewayOn(server.baseUrl, { outputLimitField: 'max_completion_tokens' });
    const answer = await chat(gateway.url, { model: 'dollar', messages: [{ role: 'user', content: 'hi' }], max_tokens: null });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(server.bodies.at(-1).max_completion_tokens, 8);
    assert.equal((await gateway.gate.admin.usage('acme')).wallet, 2);
  });

  it('an Anthropic Messages client on a reasoning model that refuses max_tokens: its max_tokens is sent as max_completion_tokens and answered', async () => {
    const server = await chatServerWithOwnDefault(true);
    const gateway = await gatewayOn(server.baseUrl, { outputLimitField: 'max_completion_tokens' });
    const answer = await fetch(`${gateway.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': KEY, 'anthropic-version': '2023-06-01' }, body: JSON.stringify({ model: 'dollar', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }) });
    const body = (await answer.json()) as any;
    assert.equal(answer.status, 200, JSON.stringify(body));
    assert.deepEqual({ max_tokens: server.bodies.at(-1).max_tokens, max_completion_tokens: server.bodies.at(-1).max_completion_tokens }, { max_tokens: undefined, max_completion_tokens: 5 });
    assert.equal(body.usage.output_tokens, 5);
    assert.equal((await gateway.gate.admin.usage('acme')).wallet, 5);
  });

  it('an OpenAI chat client\'s own max_tokens to a reasoning model that refuses it: sent as max_completion_tokens, answered', async () => {
    const server = await chatServerWithOwnDefault(true);
    const gateway = await gatewayOn(server.baseUrl, { outputLimitField: 'max_completion_tokens' });
    const answer = await chat(gateway.url, { model: 'dollar', messages: [{ role: 'user', content: 'hi' }], max_tokens: 3 });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(server.bodies.at(-1).max_completion_tokens, 3);
    assert.equal((await gateway.gate.admin.usage('acme')).wallet, 7);
  });
});
