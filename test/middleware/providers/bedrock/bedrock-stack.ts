import type { ConfigInput } from '@tollgate/middleware';
import { FAKE_BEDROCK_CREDENTIALS, FAKE_BEDROCK_REGION, startFakeBedrock } from '../../../fakes/index.js';
import { TEST_KEY, startGateway, type RunningGateway } from '../../../support/gateway.js';

export { TEST_KEY };

/** The Bedrock model id the alias routes to: its `:` must reach Bedrock percent-encoded in the path. */
export const BEDROCK_MODEL = 'anthropic.claude-3-5-sonnet-20240620-v1:0';

/**
 * A fake Bedrock Runtime with a Tollgate in front: alias `claude-bedrock` on a `bedrock` provider signing
 * with the fake's known credentials (or `credentials` given, e.g. a wrong secret), or authenticating with `apiKey`.
 */
export async function startBedrockStack(options: { credentials?: { accessKeyId: string; secretAccessKey: string }; apiKey?: string; wallet?: number } = {}) {
  const bedrock = await startFakeBedrock();
  const config: ConfigInput = {
    defaultCatalog: false,
    keys: [{ key: TEST_KEY, org: 'acme' }],
    organizations: { acme: { wallet: options.wallet ?? 100, limits: { concurrency: 1 } } },
    providers: {
      aws: options.apiKey
        ? { kind: 'bedrock', baseUrl: bedrock.baseUrl, apiKey: options.apiKey, retryBaseMs: 1, maxRetries: 1 }
        : { kind: 'bedrock', baseUrl: bedrock.baseUrl, region: FAKE_BEDROCK_REGION, credentials: options.credentials ?? { ...FAKE_BEDROCK_CREDENTIALS }, retryBaseMs: 1, maxRetries: 1 },
    },
    models: {
      'claude-bedrock': { routes: [{ provider: 'aws', model: BEDROCK_MODEL }], price: { input: 3, output: 15 }, maxOutputTokens: 8_192 },
    },
  };
  const gateway: RunningGateway = await startGateway(config);
  return {
    bedrock,
    gateway,
    async close() {
      await gateway.close();
      await bedrock.close();
    },
  };
}

export type BedrockStack = Awaited<ReturnType<typeof startBedrockStack>>;
