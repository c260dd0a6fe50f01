import type { ConfigInput } from '@tollgate/middleware';
import { startFakeAnthropic, startFakeOpenAI } from '../../fakes/index.js';
import { TEST_KEY, startGateway, type RunningGateway } from '../../support/gateway.js';

export { TEST_KEY };
export const SQL_ONLY_KEY = 'tg-sql-only-key-01-0123456789abcdef';

type Fakes = { openai: Awaited<ReturnType<typeof startFakeOpenAI>>; anthropic: Awaited<ReturnType<typeof startFakeAnthropic>> };

/** A test catalog: one alias per provider kind, one with a fallback route, one that cannot route. */
export function gatewayConfig(fakes: Fakes, overrides: Partial<ConfigInput> = {}): ConfigInput {
  return {
    defaultCatalog: false,
    keys: [
      { key: TEST_KEY, org: 'acme' },
      { key: SQL_ONLY_KEY, org: 'acme', scopes: ['sql'] },
    ],
    organizations: { acme: { wallet: 100 } },
    providers: {
      openai: { kind: 'openai', baseUrl: fakes.openai.baseUrl, apiKey: 'sk-fake-openai', retryBaseMs: 1, maxRetries: 2 },
      anthropic: { kind: 'anthropic', baseUrl: fakes.anthropic.baseUrl, apiKey: 'sk-fake-anthropic', retryBaseMs: 1, maxRetries: 2 },
      offline: { kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKey: '${TOLLGATE_TEST_NEVER_SET}' },
    },
    models: {
      gpt: { routes: [{ provider: 'openai', model: 'gpt-4o' }], price: { input: 2.5, output: 10 }, maxOutputTokens: 16_384 },
      claude: { routes: [{ provider: 'anthropic', model: 'claude-sonnet-4-5' }], price: { input: 3, output: 15 }, maxOutputTokens: 64_000 },
      'claude-with-fallback': { routes: [{ provider: 'anthropic', model: 'claude-sonnet-4-5' }, { provider: 'openai', model: 'gpt-4o' }], price: { input: 3, output: 15 } },
      'not-routable': { routes: [{ provider: 'offline', model: 'some-model' }] },
    },
    ...overrides,
  };
}

/** Fake OpenAI and Anthropic upstreams plus a Tollgate in front of them, fresh for each test. */
export async function startStack(overrides: Partial<ConfigInput> = {}): Promise<Fakes & { gateway: RunningGateway; close(): Promise<void> }> {
  const openai = await startFakeOpenAI();
  const anthropic = await startFakeAnthropic();
  const gateway = await startGateway(gatewayConfig({ openai, anthropic }, overrides));
  return {
    openai,
    anthropic,
    gateway,
    async close() {
      await gateway.close();
      await openai.close();
      await anthropic.close();
    },
  };
}
