import assert from 'node:assert/strict';
import type { ConfigInput } from '@tollgate/middleware';
import { startGateway, type RunningGateway } from '../../../support/gateway.js';
import { sendJson, startScripted } from '../../../support/scripted-provider.js';

const KEY = 'tg-hunt-acme-key-0123456789abcdefXYZ';
const TEXT = 'alpha beta gamma delta epsilon zeta eta theta iota kappa';

/** README "What is billed": a usage without an output count is not a report of zero output; the delivered output is billed by the tokenizer. */
describe('a Gemini usageMetadata without candidatesTokenCount does not leave the output unbilled', function () {
  this.timeout(20_000);
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  async function stack(usageMetadata: unknown) {
    const gemini = await startScripted((req, res) => {
      const answer = { candidates: [{ index: 0, content: { role: 'model', parts: [{ text: TEXT }] }, finishReason: 'STOP' }], usageMetadata, responseId: 'r1' };
      if (!req.url!.includes('streamGenerateContent')) return sendJson(res, 200, answer);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: ${JSON.stringify(answer)}\r\n\r\n`);
    }, '/v1beta');
    closers.push(() => gemini.close());
    const config: ConfigInput = {
      defaultCatalog: false,
      keys: [{ key: KEY, org: 'acme' }],
      organizations: { acme: { wallet: 100 } },
      providers: { google: { kind: 'gemini', baseUrl: gemini.baseUrl, apiKey: 'g', retryBaseMs: 1, maxRetries: 0 } },
      models: { gemini: { routes: [{ provider: 'google', model: 'gemini-2.5-pro' }], price: { input: 0, output: 1_000_000 } } },
    };
    const gateway: RunningGateway = await startGateway(config, { logger: { info() {}, error() {} } });
    closers.push(() => gateway.close());
    return gateway;
  }

  const post = (url: string, body: object) => fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, body: JSON.stringify(body) });

  for (const [name, usage] of [
    ['promptTokenCount only', { promptTokenCount: 3, totalTokenCount: 3 }],
    ['an empty usageMetadata', {}],
  ] as const) {
    it(`JSON answer with ${name}: the delivered output is billed`, async () => {
      const gateway = await stack(usage);
      const response = await post(gateway.url, { model: 'gemini', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] });
      const body = (await response.json()) as any;
      assert.equal(response.status, 200);
      assert.equal(body.choices[0].message.content, TEXT);
      const report = await gateway.gate.admin.usage('acme');
      assert.ok(report.outputTokens > 0, `10 words delivered, ${report.outputTokens} output tokens billed (cost header ${response.headers.get('x-service-cost-usd')})`);
    });

    it(`stream with ${name}: the delivered output is billed`, async () => {
      const gateway = await stack(usage);
      const response = await post(gateway.url, { model: 'gemini', max_tokens: 20, stream: true, messages: [{ role: 'user', content: 'hi' }] });
      const text = await response.text();
      assert.ok(text.includes('alpha beta'), text);
      const report = await gateway.gate.admin.usage('acme');
      assert.ok(report.outputTokens > 0, `10 words delivered, ${report.outputTokens} output tokens billed`);
    });
  }
});
