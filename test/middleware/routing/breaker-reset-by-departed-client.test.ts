import assert from 'node:assert/strict';
import type { ConfigInput } from '@tollgate/middleware';
import { startGateway, TEST_KEY, type RunningGateway } from '../../support/gateway.js';
import { chatCompletion, sendJson, startScripted } from '../../support/scripted-provider.js';

/**
 * README "Routing strategies": `circuitBreaker: {failures, coolDownMs}` takes out "a route whose requests failed that
 * many times in a row". A request whose client left while the route was still being tried did not succeed on it,
 * but the board counted it as a success and reset the route's streak: a provider that hangs (answering only with
 * its headers timeout) is never taken out while some clients give up before the timeout, and every request keeps
 * paying the full timeout on it before failing over.
 */
describe('the circuit breaker with clients that give up', function () {
  this.timeout(15_000);
  let gateway: RunningGateway;
  let hanging: Awaited<ReturnType<typeof startScripted>>;
  let healthy: Awaited<ReturnType<typeof startScripted>>;

  before(async () => {
    hanging = await startScripted(() => undefined); // never answers
    healthy = await startScripted((_req, res) => sendJson(res, 200, chatCompletion('ok', { prompt_tokens: 1, completion_tokens: 1 })));
    const config: ConfigInput = {
      defaultCatalog: false,
      keys: [{ key: TEST_KEY, org: 'acme' }],
      organizations: { acme: { wallet: 10 } },
      providers: {
        hanging: { kind: 'openai', baseUrl: hanging.baseUrl, apiKey: 'sk-a', maxRetries: 0, timeoutMs: 400 },
        healthy: { kind: 'openai', baseUrl: healthy.baseUrl, apiKey: 'sk-b', maxRetries: 0 },
      },
      models: { m: { routes: [{ provider: 'hanging', model: 'gpt-4o' }, { provider: 'healthy', model: 'gpt-4o' }], price: { input: 1, output: 1 }, circuitBreaker: { failures: 2, coolDownMs: 60_000 } } },
    };
    gateway = await startGateway(config);
  });
  after(async () => {
    await gateway.close();
    await hanging.close();
    await healthy.close();
  });

  const call = (signal?: AbortSignal) =>
    fetch(`${gateway.url}/v1/chat/completions`, { signal, method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` }, body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }) }).then(
      (r) => r.headers.get('x-tollgate-route'),
      () => 'left',
    );

  it('takes the route out after two failed requests, a departed client in between counting as neither', async () => {
    assert.equal(await call(), 'healthy/gpt-4o'); // failure 1 of the hanging route (its timeout), then failed over
    assert.equal(await call(AbortSignal.timeout(100)), 'left'); // gave up while the hanging route was tried
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(await call(), 'healthy/gpt-4o'); // failure 2: the route is out
    assert.equal(hanging.count, 3);
    const started = Date.now();
    assert.equal(await call(), 'healthy/gpt-4o');
    assert.equal(hanging.count, 3, 'the route taken out was tried again');
    assert.ok(Date.now() - started < 300, `answered after ${Date.now() - started} ms: the hanging route's timeout was waited out again`);
  });
});
