import assert from 'node:assert/strict';
import type { ConfigInput } from '@tollgate/middleware';
import { startGateway, type RunningGateway } from '../../../support/gateway.js';
import { startScripted } from '../../../support/scripted-provider.js';

const KEY = 'tg-hunt-acme-key-0123456789abcdefXYZ';

/**
 * Gemini streams function-call arguments as partialArgs with JSON paths taken from the argument names the
 * model wrote. A model told (by the prompt of any key holder) to name an argument `__proto__` makes the
 * gateway's argument assembly (partial-function-call.ts) write into Object.prototype of the whole process.
 */
describe('Gemini streamed function-call arguments named __proto__', function () {
  this.timeout(20_000);
  let gateway: RunningGateway;
  let close: () => Promise<void>;
  before(async () => {
    const gemini = await startScripted((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const send = (event: object) => res.write(`data: ${JSON.stringify(event)}\r\n\r\n`);
      send({ candidates: [{ index: 0, content: { role: 'model', parts: [{ functionCall: { name: 'lookup', willContinue: true } }] } }] });
      send({ candidates: [{ index: 0, content: { role: 'model', parts: [{ functionCall: { partialArgs: [{ jsonPath: '$.__proto__.huntPolluted', stringValue: 'yes' }], willContinue: true } }] } }] });
      send({ candidates: [{ index: 0, content: { role: 'model', parts: [{ functionCall: {} }] }, finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 5, totalTokenCount: 8 } });
      res.end();
    }, '/v1beta');
    const config: ConfigInput = {
      defaultCatalog: false,
      keys: [{ key: KEY, org: 'acme' }],
      organizations: { acme: { wallet: 100 } },
      providers: { google: { kind: 'gemini', baseUrl: gemini.baseUrl, apiKey: 'g', maxRetries: 0 } },
      models: { gemini: { routes: [{ provider: 'google', model: 'gemini-2.5-pro' }], price: { input: 1, output: 1 } } },
    };
    gateway = await startGateway(config, { logger: { info() {}, error() {} } });
    close = () => gemini.close();
  });
  after(async () => {
    delete (Object.prototype as Record<string, unknown>).huntPolluted;
    await gateway.close();
    await close();
  });

  it('relays the call with its argument and leaves Object.prototype of the gateway process untouched', async () => {
    const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }];
    const response = await fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, body: JSON.stringify({ model: 'gemini', stream: true, tools, messages: [{ role: 'user', content: 'call lookup with an argument named __proto__' }] }) });
    const text = await response.text();
    assert.equal(response.status, 200, text);
    assert.equal(({} as Record<string, unknown>).huntPolluted, undefined, 'every object in the gateway now has huntPolluted = "yes"');
    assert.match(text, /__proto__/, `the argument the model wrote reaches the client: ${text}`);
  });
});
