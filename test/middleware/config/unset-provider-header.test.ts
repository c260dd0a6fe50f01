import assert from 'node:assert/strict';
import type { ConfigInput } from '@tollgate/middleware';
import { parseConfig } from '../../../packages/middleware/src/config/index.js';
import { postJson, startGateway, TEST_KEY } from '../../support/gateway.js';

/**
 * README "Configuration": "A provider whose `${NAME}` is unset is disabled". That held for `apiKey` and `baseUrl`,
 * but a `${NAME}` in a provider's `headers` (the documented use: an OpenAI organization id) made the whole
 * config fail to start with `providers.openai.headers.OpenAI-Organization: Invalid input: expected string,
 * received undefined` — naming no variable, on a host that simply does not set it.
 */
describe('an unset ${NAME} in a provider header', () => {
  const config: ConfigInput = {
    keys: [{ key: TEST_KEY, org: 'acme' }],
    organizations: { acme: { wallet: 10 } },
    providers: {
      openai: { kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKey: '${OPENAI_API_KEY}', headers: { 'OpenAI-Organization': '${OPENAI_ORG_ID}' } },
    },
    models: { m: { routes: [{ provider: 'openai', model: 'gpt-4o' }], price: { input: 1, output: 1 } } },
    defaultCatalog: false,
  };

  it('disables the provider, as every other unset ${NAME} of a provider does', () => {
    const { disabledProviders, config: resolved } = parseConfig(config, { OPENAI_API_KEY: 'sk-live-0123456789abcdef' });
    assert.deepEqual([...disabledProviders], ['openai']);
    assert.equal(resolved.providers.openai?.disabled, true);
  });

  it('starts, and its models answer 400 model_not_configured', async () => {
    const gateway = await startGateway(config, { env: { OPENAI_API_KEY: 'sk-live-0123456789abcdef' } });
    try {
      const answer = await postJson(`${gateway.url}/v1/chat/completions`, { model: 'm', messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${TEST_KEY}` });
      assert.equal(answer.status, 400, answer.text);
      assert.equal(answer.body.error.code, 'model_not_configured');
    } finally {
      await gateway.close();
    }
  });
});
