import assert from 'node:assert/strict';
import type { ConfigInput } from '@tollgate/middleware';
import { startGateway, type RunningGateway } from '../../support/gateway.js';
import { chatCompletion, sendJson, startScripted } from '../../support/scripted-provider.js';

const KEY = 'tg-hunt-acme-key-0123456789abcdefXYZ';
const TEXT = 'alpha beta gamma delta epsilon zeta eta theta iota kappa';

describe('a usage report without an output count does not leave the output unbilled', function () {
  this.timeout(20_000);
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  async function stack(usage: unknown) {
    const openai = await startScripted((_req, res, body) => {
      if (body.stream !== true) return sendJson(res, 200, chatCompletion(TEXT, usage));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const base = { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o' };
      res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: TEXT }, finish_reason: null }] })}\n\n`);
      res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`);
      res.write(`data: ${JSON.stringify({ ...base, choices: [], usage })}\n\n`);
      res.end('data: [DONE]\n\n');
    });
    closers.push(() => openai.close());
    const config: ConfigInput = {
      defaultCatalog: false,
      keys: [{ key: KEY, org: 'acme' }],
      organizations: { acme: { wallet: 100 } },
      providers: { openai: { kind: 'openai', baseUrl: openai.baseUrl, apiKey: 'sk-x', retryBaseMs: 1 } },
      models: { gpt: { routes: [{ provider: 'openai', model: 'gpt-4o' }], price: { input: 0, output: 1_000_000 } } },
    };
    const gateway: RunningGateway = await startGateway(config);
    closers.push(() => gateway.close());
    return gateway;
  }

  const post = (url: string, body: object) => fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, body: JSON.stringify(body) });

  for (const [name, usage] of [
    ['prompt_tokens only', { prompt_tokens: 3 }],
    ['an empty usage object', {}],
  ] as const) {
    it(`JSON answer with ${name}: the delivered output is billed`, async () => {
      const gateway = await stack(usage);
      const response = await post(gateway.url, { model: 'gpt', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] });
      const body = (await response.json()) as any;
      assert.equal(response.status, 200);
      assert.equal(body.choices[0].message.content, TEXT);
      const report = await gateway.gate.admin.usage('acme');
      assert.ok(report.outputTokens > 0, `10 words delivered, ${report.outputTokens} output tokens billed (cost header ${response.headers.get('x-service-cost-usd')})`);
    });

    it(`stream with ${name}: the delivered output is billed`, async () => {
      const gateway = await stack(usage);
      const response = await post(gateway.url, { model: 'gpt', max_tokens: 20, stream: true, messages: [{ role: 'user', content: 'hi' }] });
      const text = await response.text();
      assert.ok(text.includes('alpha beta'));
      const report = await gateway.gate.admin.usage('acme');
      assert.ok(report.outputTokens > 0, `10 words delivered, ${report.outputTokens} output tokens billed`);
    });
  }
});
