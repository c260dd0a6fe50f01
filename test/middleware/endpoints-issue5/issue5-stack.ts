import type { ConfigInput } from '@tollgate/middleware';
import { startFakeAnthropic, startFakeOpenAI } from '../../fakes/index.js';
import { TEST_KEY, startGateway, type RunningGateway } from '../../support/gateway.js';
import { FAKE_GEMINI_KEY, startFakeGemini } from '../../fakes/index.js';

export { TEST_KEY };

/**
 * Fake OpenAI(-compatible), Anthropic and Gemini upstreams with a Tollgate in front: one chat alias and
 * one embedding alias per provider kind, plus `gemini` — a name contract §6.1 rule 4 singles out.
 */
export async function startIssue5Stack(overrides: Partial<ConfigInput> = {}) {
  const openai = await startFakeOpenAI();
  const anthropic = await startFakeAnthropic();
  const gemini = await startFakeGemini();
  const config: ConfigInput = {
    defaultCatalog: false,
    keys: [{ key: TEST_KEY, org: 'acme' }],
    organizations: { acme: { wallet: 100 } },
    providers: {
      openai: { kind: 'openai', baseUrl: openai.baseUrl, apiKey: 'sk-fake-openai', retryBaseMs: 1, maxRetries: 1 },
      anthropic: { kind: 'anthropic', baseUrl: anthropic.baseUrl, apiKey: 'sk-fake-anthropic', retryBaseMs: 1, maxRetries: 1 },
      google: { kind: 'gemini', baseUrl: gemini.baseUrl, apiKey: FAKE_GEMINI_KEY, retryBaseMs: 1, maxRetries: 1 },
    },
    models: {
      gpt: { routes: [{ provider: 'openai', model: 'gpt-4o' }], price: { input: 2.5, output: 10 }, maxOutputTokens: 16_384 },
      claude: { routes: [{ provider: 'anthropic', model: 'claude-sonnet-4-5' }], price: { input: 3, output: 15 }, maxOutputTokens: 64_000 },
      gemini: { routes: [{ provider: 'google', model: 'gemini-2.5-pro' }], price: { input: 1.25, output: 10 }, maxOutputTokens: 65_536 },
      embed: { kind: 'embedding', routes: [{ provider: 'openai', model: 'text-embedding-3-small' }], price: { input: 0.02 } },
      'gemini-embed': { kind: 'embedding', routes: [{ provider: 'google', model: 'gemini-embedding-001' }], price: { input: 0.15 } },
    },
    ...overrides,
  };
  const gateway: RunningGateway = await startGateway(config);
  return {
    openai,
    anthropic,
    gemini,
    gateway,
    async close() {
      await gateway.close();
      await Promise.all([openai.close(), anthropic.close(), gemini.close()]);
    },
  };
}

export type Issue5Stack = Awaited<ReturnType<typeof startIssue5Stack>>;
