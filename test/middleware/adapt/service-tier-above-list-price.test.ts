import assert from 'node:assert/strict';
import type { ConfigInput } from '@tollgate/middleware';
import { startFakeOpenAI } from '../../fakes/index.js';
import { postJson, startGateway, TEST_KEY, type RunningGateway } from '../../support/gateway.js';

const auth = { authorization: `Bearer ${TEST_KEY}` };
const user = [{ role: 'user', content: 'hi there' }];

/**
 * OpenAI bills `service_tier: "priority"` at about twice its standard rates, which an alias's list price stands for:
 * relayed, a key holder got output billed below its cost. Dropped and reported (contract §4.3 rule 1) unless the
 * operator's alias takes it (`params.service_tier: true`).
 */
describe("OpenAI service tiers billed above the alias's list price", function () {
  this.timeout(20_000);
  let openai: Awaited<ReturnType<typeof startFakeOpenAI>>;
  let gateway: RunningGateway;

  async function start(model: Partial<NonNullable<ConfigInput['models']>[string]> = {}) {
    openai = await startFakeOpenAI();
    gateway = await startGateway({
      defaultCatalog: false,
      keys: [{ key: TEST_KEY, org: 'acme' }],
      organizations: { acme: { wallet: 100 } },
      // responsesApi: Responses relayed natively, as to OpenAI itself.
      providers: { openai: { kind: 'openai', baseUrl: openai.baseUrl, apiKey: 'sk-fake-openai', retryBaseMs: 1, responsesApi: true } },
      models: { gpt: { routes: [{ provider: 'openai', model: 'gpt-4o' }], price: { input: 2.5, output: 10 }, ...model } },
    });
  }
  afterEach(async () => {
    await gateway.close();
    await openai.close();
  });

  const sent = () => (openai.requests.at(-1)?.body as Record<string, unknown>).service_tier;

  for (const [path, body] of [
    ['/v1/chat/completions', { model: 'gpt', messages: user }],
    ['/v1/responses', { model: 'gpt', input: 'hi there' }],
  ] as const) {
    it(`${path}: "priority" and "scale" are dropped and reported in X-Service-Dropped-Params; "auto", "default" and "flex" are sent`, async () => {
      await start();
      for (const tier of ['priority', 'scale']) {
        const r = await postJson(`${gateway.url}${path}`, { ...body, service_tier: tier }, auth);
        assert.equal(r.status, 200, JSON.stringify(r.body));
        assert.equal(r.headers.get('x-service-dropped-params'), 'service_tier');
        assert.equal(sent(), undefined);
      }
      for (const tier of ['auto', 'default', 'flex']) {
        const r = await postJson(`${gateway.url}${path}`, { ...body, service_tier: tier }, auth);
        assert.equal(r.status, 200);
        assert.equal(r.headers.get('x-service-dropped-params'), null);
        assert.equal(sent(), tier);
      }
    });
  }

  it('an alias with params.service_tier: true sends "priority" as the client asked', async () => {
    await start({ params: { service_tier: true } });
    const r = await postJson(`${gateway.url}/v1/chat/completions`, { model: 'gpt', messages: user, service_tier: 'priority' }, auth);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('x-service-dropped-params'), null);
    assert.equal(sent(), 'priority');
  });
});
