import assert from 'node:assert/strict';
import type { ConfigInput } from '@tollgate/middleware';
import { postJson, startGateway, TEST_KEY, type RunningGateway } from '../../support/gateway.js';
import { chatCompletion, sendJson, startScripted } from '../../support/scripted-provider.js';

/**
 * README "Retries upstream": 429 and 5xx are retried "with exponential backoff and full jitter (at least the
 * provider's Retry-After, at most 4 s)". Retry-After is either delay-seconds or an HTTP-date (RFC 9110 §10.2.3);
 * a provider (or the proxy in front of it) that sends the date form must be waited for too, not hammered at once.
 */
describe('a provider 429 whose Retry-After is an HTTP-date', function () {
  this.timeout(15_000);
  let gateway: RunningGateway;
  let provider: Awaited<ReturnType<typeof startScripted>>;
  const arrivals: number[] = [];

  before(async () => {
    provider = await startScripted((_req, res, _body, n) => {
      arrivals.push(Date.now());
      // Three seconds from now, at the header's one-second resolution: at least two seconds of wait asked.
      if (n === 0) sendJson(res, 429, { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } }, { 'retry-after': new Date(Date.now() + 3_000).toUTCString() });
      else sendJson(res, 200, chatCompletion('after the wait', { prompt_tokens: 3, completion_tokens: 3 }));
    });
    const config: ConfigInput = {
      defaultCatalog: false,
      keys: [{ key: TEST_KEY, org: 'acme' }],
      organizations: { acme: { wallet: 10 } },
      providers: { p: { kind: 'openai', baseUrl: provider.baseUrl, apiKey: 'sk-fake', maxRetries: 1, retryBaseMs: 1 } },
      models: { m: { routes: [{ provider: 'p', model: 'gpt-4o' }], price: { input: 1, output: 1 } } },
    };
    gateway = await startGateway(config);
  });
  after(async () => {
    await gateway.close();
    await provider.close();
  });

  it('waits until the date before its retry (at most 4 s), then answers 200', async () => {
    const r = await postJson(`${gateway.url}/v1/chat/completions`, { model: 'm', messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${TEST_KEY}` });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.choices[0].message.content, 'after the wait');
    assert.equal(arrivals.length, 2);
    const waited = arrivals[1]! - arrivals[0]!;
    assert.ok(waited >= 1_500, `retried after ${waited} ms although the provider asked to wait until a date 2-3 s ahead`);
    assert.ok(waited <= 4_500, `retried after ${waited} ms, more than the 4 s cap`);
  });
});
