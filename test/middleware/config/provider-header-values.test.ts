import assert from 'node:assert/strict';
import { ConfigError, type ConfigInput } from '@tollgate/middleware';
import { postJson, startGateway, TEST_KEY, type RunningGateway } from '../../support/gateway.js';
import { chatCompletion, sendJson, startScripted } from '../../support/scripted-provider.js';

/**
 * A provider's `apiKey` and `headers` go into upstream request headers. A value no HTTP header can carry — most
 * often a secret read from a file or a CRLF .env through `${NAME}`, ending in a newline — passed validation, and
 * then every request to that provider answered `502 Upstream provider could not be reached: UND_ERR_INVALID_ARG`
 * (after its retries, opening the circuit breaker): nothing names the provider's key as the cause.
 */
describe('provider apiKey and headers that no HTTP header can carry', () => {
  const usage = { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 };

  async function firstAnswer(provider: Record<string, unknown>, env: NodeJS.ProcessEnv, field: RegExp) {
    const upstream = await startScripted((req, res) => sendJson(res, 200, chatCompletion(String(req.headers.authorization), usage)));
    const config: ConfigInput = {
      keys: [{ key: TEST_KEY, org: 'acme' }],
      organizations: { acme: { wallet: 10 } },
      providers: { p: { kind: 'openai', baseUrl: upstream.baseUrl, ...provider } as never },
      models: { m: { routes: [{ provider: 'p', model: 'gpt-4o' }], price: { input: 1, output: 1 } } },
      defaultCatalog: false,
    };
    let gateway: RunningGateway | undefined;
    try {
      gateway = await startGateway(config, { env });
    } catch (error) {
      assert.ok(error instanceof ConfigError, String(error));
      assert.match(error.message, field, 'the start-up error names the field');
      assert.doesNotMatch(error.message, /sk-live/, 'and does not print the secret');
      await upstream.close();
      return 'refused';
    }
    try {
      return await postJson(`${gateway.url}/v1/chat/completions`, { model: 'm', messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${TEST_KEY}` });
    } finally {
      await gateway.close();
      await upstream.close();
    }
  }

  it('an apiKey whose ${NAME} value ends in a newline is refused at start-up naming providers.p.apiKey, never a 502 on every request', async () => {
    const outcome = await firstAnswer({ apiKey: '${OPENAI_API_KEY}' }, { OPENAI_API_KEY: 'sk-live-0123456789abcdef\n' }, /providers\.p\.apiKey/);
    if (outcome === 'refused') return;
    assert.equal(outcome.status, 200, outcome.text);
  });

  it('a header value with a CR is refused at start-up naming the header, never a 502 on every request', async () => {
    const outcome = await firstAnswer({ apiKey: 'sk-live-0123456789abcdef', headers: { 'OpenAI-Organization': '${OPENAI_ORG}' } }, { OPENAI_ORG: 'org-123\r' }, /providers\.p\.headers\.OpenAI-Organization/);
    if (outcome === 'refused') return;
    assert.equal(outcome.status, 200, outcome.text);
  });

  it('a header name with a space is refused at start-up naming it, never a 502 on every request', async () => {
    const outcome = await firstAnswer({ apiKey: 'sk-live-0123456789abcdef', headers: { 'OpenAI Organization': 'org-123' } }, {}, /providers\.p\.headers/);
    if (outcome === 'refused') return;
    assert.equal(outcome.status, 200, outcome.text);
  });
});
