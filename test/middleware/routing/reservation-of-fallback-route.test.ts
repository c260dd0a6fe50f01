import assert from 'node:assert/strict';
import type { ConfigInput } from '@tollgate/middleware';
import { startGateway, TEST_KEY, type RunningGateway } from '../../support/gateway.js';
import { chatCompletion, sendJson, startScripted } from '../../support/scripted-provider.js';

function words(count: number) {
  return Array.from({ length: count }, (_, i) => `w${i}`).join(' ');
}

/**
 * README "Reservations": admission reserves the request's worst case (output budget times `n`), "so a wallet never
 * ends below −overdraft". The reservation was computed from the alias's first route as adapted (an Anthropic
 * route clamps `n` to 1), while the request may be served by another route that keeps `n` — after a failover, or
 * first of all under another strategy. The fallback route then produced n times what was reserved.
 */
describe('the reservation of a request served by a fallback route', function () {
  this.timeout(15_000);
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  async function stack(strategy: 'failover' | 'weighted') {
    // Overloaded: every call is a 529, so the request fails over.
    const anthropic = await startScripted((_req, res) => sendJson(res, 529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }), '');
    // OpenAI-like: honours max_tokens per choice, n choices.
    const openai = await startScripted((_req, res, body) => {
      const each = body.max_tokens ?? 50;
      const n = body.n ?? 1;
      sendJson(res, 200, chatCompletion(Array.from({ length: n }, () => words(each)), { prompt_tokens: 3, completion_tokens: each * n }));
    });
    closers.push(() => openai.close(), () => anthropic.close());
    const config: ConfigInput = {
      defaultCatalog: false,
      keys: [{ key: TEST_KEY, org: 'acme' }],
      // 1 USD per output token; 10 USD in the wallet, no overdraft.
      organizations: { acme: { wallet: 10, overdraft: 0 } },
      providers: {
        anthropic: { kind: 'anthropic', baseUrl: anthropic.baseUrl, apiKey: 'sk-y', maxRetries: 0 },
        openai: { kind: 'openai', baseUrl: openai.baseUrl, apiKey: 'sk-x', maxRetries: 0 },
      },
      models: {
        dollar: {
          strategy,
          routes: [
            { provider: 'anthropic', model: 'claude-haiku-4-5', weight: 1e-9 },
            { provider: 'openai', model: 'gpt-4o', weight: 1 },
          ],
          price: { input: 0, output: 1_000_000 },
        },
      },
    };
    const gateway: RunningGateway = await startGateway(config);
    closers.push(() => gateway.close());
    return gateway;
  }

  for (const strategy of ['failover', 'weighted'] as const) {
    it(`${strategy}: n = 10 answered by the OpenAI route never takes the wallet (10 USD, no overdraft) below 0`, async () => {
      const gateway = await stack(strategy);
      // n = 1 on the Anthropic route would reserve 5 USD; 10 choices of 5 tokens on the OpenAI route cost 50 USD.
      const r = await fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` }, body: JSON.stringify({ model: 'dollar', max_tokens: 5, n: 10, messages: [{ role: 'user', content: 'hi' }] }) });
      const text = await r.text();
      const usage = await gateway.gate.admin.usage('acme');
      assert.ok(r.status === 402 || usage.wallet >= 0, `status ${r.status} (route ${r.headers.get('x-tollgate-route')}, cost ${r.headers.get('x-service-cost-usd')}), wallet ended at ${usage.wallet}: ${text.slice(0, 200)}`);
    });
  }
});
