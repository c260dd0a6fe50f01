import assert from 'node:assert/strict';
import { ConfigError, type ConfigInput } from '@tollgate/middleware';
import { postJson, startGateway, TEST_KEY, type RunningGateway } from '../../support/gateway.js';

/**
 * `baseUrl` was checked with `z.url()`, which takes any scheme: `localhost:11434/v1` — an Ollama address written
 * without `http://`, the commonest slip — parses as a URL of scheme `localhost:`. The config started, and every
 * request to the provider then answered 502 "Upstream provider could not be reached" naming no field.
 */
describe('a provider baseUrl that is not an http(s) URL', () => {
  async function firstAnswer(baseUrl: string) {
    const config: ConfigInput = {
      keys: [{ key: TEST_KEY, org: 'acme' }],
      organizations: { acme: { wallet: 10 } },
      providers: { ollama: { kind: 'openai', baseUrl } },
      models: { llama: { routes: [{ provider: 'ollama', model: 'llama3' }] } },
      defaultCatalog: false,
    };
    let gateway: RunningGateway;
    try {
      gateway = await startGateway(config);
    } catch (error) {
      assert.ok(error instanceof ConfigError, String(error));
      assert.match(error.message, /providers\.ollama\.baseUrl/);
      return 'refused';
    }
    try {
      return await postJson(`${gateway.url}/v1/chat/completions`, { model: 'llama', messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${TEST_KEY}` });
    } finally {
      await gateway.close();
    }
  }

  for (const baseUrl of ['localhost:11434/v1', 'file:///srv/models/v1']) {
    it(`refuses ${JSON.stringify(baseUrl)} at start-up naming providers.ollama.baseUrl`, async () => {
      assert.equal(await firstAnswer(baseUrl), 'refused');
    });
  }
});
