import { z } from 'zod';
import { providerKinds } from './registry.js';

/** One provider's settings (README "Configuration"); the config composes them under `providers`. */
export const providerSettings = z
  .object({
    /** A registered provider kind (providers/registry.ts). */
    kind: z.enum(providerKinds),
    baseUrl: z.url().optional(),
    apiKey: z.string().optional(),
    /** `bedrock`: the AWS region signed for and called (default: AWS_REGION, AWS_DEFAULT_REGION, us-east-1). */
    region: z.string().min(1).optional(),
    /**
     * `bedrock`: AWS credentials for SigV4 (default: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN).
     * Each may be absent here: a `${NAME}` that is unset disables the provider, as an unset `apiKey` does.
     */
    credentials: z.object({ accessKeyId: z.string().min(1).optional(), secretAccessKey: z.string().min(1).optional(), sessionToken: z.string().min(1).optional() }).strict().optional(),
    /** Extra headers sent upstream (e.g. an OpenAI organization id). */
    headers: z.record(z.string(), z.string()).default({}),
    timeoutMs: z.number().int().positive().default(120_000),
    /** Attempts per route for transient failures, before failing over to the next route. */
    maxRetries: z.number().int().min(0).max(10).default(2),
    /** First backoff step; later ones double, with full jitter, up to 4 s or the provider's Retry-After. */
    retryBaseMs: z.number().int().nonnegative().default(200),
    /**
     * Whether an `openai`-kind server speaks `/v1/responses` itself (relayed natively) or not (translated
     * through chat completions). Default: true for OpenAI's own hosts, false for other OpenAI-compatible servers.
     */
    responsesApi: z.boolean().optional(),
    /** Not routable: set by the parser when a `${NAME}` of the provider is unset, or by hand. */
    disabled: z.boolean().optional(),
  })
  .strict();

export type ProviderConfig = z.output<typeof providerSettings>;
