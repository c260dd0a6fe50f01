import assert from 'node:assert/strict';
import { ConfigError, type ConfigInput } from '@tollgate/middleware';
import { postJson, startGateway, TEST_KEY, type RunningGateway } from '../../support/gateway.js';

/**
 * `recoveryUrl` is sent as the `X-Service-Recovery-Url` header of every 402 wallet_empty. A value Node cannot
 * put in a header (a letter past U+00FF, a newline left by the environment) passed validation, and every 402
 * then became `500 {"detail":"Internal server error"}`: the one answer that tells a client to add credit.
 */
describe('a recoveryUrl that is not a valid header value', () => {
  const config = (recoveryUrl: string): ConfigInput => ({
    keys: [{ key: TEST_KEY, org: 'acme' }],
    organizations: { acme: { wallet: 0 } },
    providers: { p: { kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-test' } },
    models: { m: { routes: [{ provider: 'p', model: 'gpt-4o' }], price: { input: 1, output: 1 } } },
    defaultCatalog: false,
    recoveryUrl,
  });

  async function walletEmpty(input: ConfigInput, env: NodeJS.ProcessEnv = {}): Promise<{ status: number; recoveryUrl: string | null; text: string } | 'refused'> {
    let gateway: RunningGateway;
    try {
      gateway = await startGateway(input, { env });
    } catch (error) {
      assert.ok(error instanceof ConfigError && /recoveryUrl/.test(error.message), `a start-up error must name recoveryUrl: ${String(error)}`);
      return 'refused';
    }
    try {
      const answer = await postJson(`${gateway.url}/v1/chat/completions`, { model: 'm', messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${TEST_KEY}` });
      return { status: answer.status, recoveryUrl: answer.headers.get('x-service-recovery-url'), text: answer.text };
    } finally {
      await gateway.close();
    }
  }

  it('answers 402 wallet_empty pointing at a recovery page whose path has accents and a euro sign', async () => {
    const url = 'https://billing.example.com/crédito/€';
    const outcome = await walletEmpty(config(url));
    if (outcome === 'refused') return;
    assert.equal(outcome.status, 402, outcome.text);
    assert.equal(decodeURI(outcome.recoveryUrl ?? ''), url);
  });

  it('refuses at start-up (naming recoveryUrl) a ${NAME} whose value ends in a newline, rather than answer 500 on every 402', async () => {
    const outcome = await walletEmpty(config('${BILLING_URL}'), { BILLING_URL: 'https://billing.example.com/top-up\r\n' });
    if (outcome === 'refused') return;
    assert.equal(outcome.status, 402, outcome.text);
  });
});
