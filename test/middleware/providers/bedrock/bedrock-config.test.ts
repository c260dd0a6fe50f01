import assert from 'node:assert/strict';
import { parseConfig } from '../../../../packages/middleware/src/config/index.js';
import { postJson } from '../../../support/gateway.js';
import { startGateway, TEST_KEY } from '../../../support/gateway.js';

describe('Bedrock provider configuration', () => {
  it('reads region and credentials, with ${NAME} from the environment', () => {
    const { config } = parseConfig({ providers: { aws: { kind: 'bedrock', region: 'eu-west-3', credentials: { accessKeyId: '${KEY_ID}', secretAccessKey: '${SECRET}' } } } }, { KEY_ID: 'AKIAX', SECRET: 'shh' });
    assert.deepEqual([config.providers.aws!.region, config.providers.aws!.credentials], ['eu-west-3', { accessKeyId: 'AKIAX', secretAccessKey: 'shh' }]);
  });

  it('names a misspelt credentials field at start-up', () => {
    assert.throws(() => parseConfig({ providers: { aws: { kind: 'bedrock', credentials: { accessKeyID: 'AKIAX', secretAccessKey: 'shh' } } } }, {}), /providers\.aws\.credentials/);
  });

  it('disables a provider whose credentials name an unset variable: its alias answers 400 model_not_configured and calls no one', async () => {
    const gateway = await startGateway({
      defaultCatalog: false,
      keys: [{ key: TEST_KEY, org: 'acme' }],
      organizations: { acme: { wallet: 10 } },
      providers: { aws: { kind: 'bedrock', baseUrl: 'http://127.0.0.1:9', credentials: { accessKeyId: '${BEDROCK_TEST_UNSET_ID}', secretAccessKey: '${BEDROCK_TEST_UNSET_SECRET}' } } },
      models: { 'claude-bedrock': { routes: [{ provider: 'aws', model: 'anthropic.claude-3-5-sonnet-20240620-v1:0' }], price: { input: 3, output: 15 } } },
    });
    try {
      const response = await postJson(`${gateway.url}/v1/chat/completions`, { model: 'claude-bedrock', messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${TEST_KEY}` });
      assert.equal(response.status, 400);
      assert.equal(response.body.error.code, 'model_not_configured');
    } finally {
      await gateway.close();
    }
  });
});
