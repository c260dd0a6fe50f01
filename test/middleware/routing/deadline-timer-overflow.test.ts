import assert from 'node:assert/strict';
import type { ConfigInput } from '@tollgate/middleware';
import { postJson, startGateway, TEST_KEY, type RunningGateway } from '../../support/gateway.js';
import { chatCompletion, sendJson, startScripted } from '../../support/scripted-provider.js';

/**
 * `relay.attemptDeadlineMs` is "the overall time of one upstream attempt" (README "Relay limits"). The config
 * accepts any positive integer, but a Node timer past 2^31 - 1 ms (~24.8 days) fires after 1 ms: an operator who
 * sets a long deadline (say 35 days, to effectively disable it) gets every model call refused at once with
 * `502 upstream_deadline_exceeded` "did not finish its answer within 3000000000 ms". Either the value is refused
 * when the config is read, naming the setting, or the attempt gets (at least) the time it was given.
 */
describe('relay.attemptDeadlineMs above a 32-bit timer', function () {
  this.timeout(15_000);
  let provider: Awaited<ReturnType<typeof startScripted>>;
  let gateway: RunningGateway | undefined;

  before(async () => {
    provider = await startScripted((_req, res) => void setTimeout(() => sendJson(res, 200, chatCompletion('slow but fine', { prompt_tokens: 3, completion_tokens: 3 })), 50));
  });
  after(async () => {
    await gateway?.close();
    await provider.close();
  });

  it('is refused at start naming the setting, or lets a 50 ms answer through (never 502 upstream_deadline_exceeded)', async () => {
    const config: ConfigInput = {
      defaultCatalog: false,
      keys: [{ key: TEST_KEY, org: 'acme' }],
      organizations: { acme: { wallet: 10 } },
      relay: { attemptDeadlineMs: 3_000_000_000 } as ConfigInput['relay'],
      providers: { p: { kind: 'openai', baseUrl: provider.baseUrl, apiKey: 'sk-fake', maxRetries: 0 } },
      models: { m: { routes: [{ provider: 'p', model: 'gpt-4o' }], price: { input: 1, output: 1 } } },
    };
    try {
      gateway = await startGateway(config);
    } catch (error) {
      assert.match(String((error as Error).message), /attemptDeadlineMs/);
      return;
    }
    for (const stream of [false, true]) {
      const r = await postJson(`${gateway.url}/v1/chat/completions`, { model: 'm', stream, messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${TEST_KEY}` });
      assert.notEqual(r.body?.error?.code, 'upstream_deadline_exceeded', `stream ${stream}: ${r.text}`);
      if (!stream) assert.equal(r.status, 200, r.text);
    }
  });
});
