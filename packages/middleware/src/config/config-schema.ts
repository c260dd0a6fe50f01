import { z } from 'zod';

/** Parameter capability of a model: `false` — it cannot take it (dropped); a range — clamped into it. */
const paramRule = z.union([
  z.literal(false),
  z.object({ min: z.number().optional(), max: z.number().optional() }).strict(),
]);

const keyEntry = z
  .object({
    key: z.string().min(8, 'an API key must be at least 8 characters').optional(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/, 'sha256 must be 64 lowercase hex digits').optional(),
    id: z.string().min(1).optional(),
    org: z.string().min(1),
    /** `sql:read` reaches the SQL endpoint for statements that cannot write (README "Databases and organizations"). */
    scopes: z.array(z.enum(['models', 'sql', 'sql:read'])).default(['models', 'sql']),
  })
  .strict()
  .refine((entry) => (entry.key === undefined) !== (entry.sha256 === undefined), {
    message: 'give exactly one of "key" or "sha256"',
  });

const organization = z
  .object({
    wallet: z.number().finite().default(0),
    paymentMethod: z.boolean().default(false),
    included: z
      .object({
        tokens: z.number().int().nonnegative(),
        period: z.enum(['day', 'week', 'month']).optional(),
        resetAt: z.iso.datetime({ offset: true }).optional(),
      })
      .strict()
      .refine((inc) => inc.period !== undefined || inc.resetAt !== undefined, { message: 'give "period" or "resetAt"' })
      .optional(),
    limits: z
      .object({
        rpm: z.number().int().positive().optional(),
        tpm: z.number().int().positive().optional(),
        concurrency: z.number().int().positive().optional(),
      })
      .strict()
      .default({}),
  })
  .strict();

const provider = z
  .object({
    kind: z.enum(['openai', 'anthropic', 'gemini']),
    baseUrl: z.url().optional(),
    apiKey: z.string().optional(),
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
  })
  .strict();

const model = z
  .object({
    routes: z.array(z.object({ provider: z.string().min(1), model: z.string().min(1) }).strict()).min(1),
    kind: z.enum(['chat', 'embedding']).default('chat'),
    billing: z.enum(['wallet', 'included']).default('wallet'),
    /** USD per million tokens. */
    price: z.object({ input: z.number().nonnegative(), output: z.number().nonnegative().default(0) }).strict().default({ input: 0, output: 0 }),
    maxOutputTokens: z.number().int().positive().optional(),
    params: z.record(z.string(), paramRule).default({}),
    /** Set by a config to remove a default-catalog alias. */
    disabled: z.boolean().optional(),
  })
  .strict();

const store = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('memory'), file: z.string().optional() }).strict(),
  z
    .object({
      kind: z.literal('redis'),
      url: z.string().min(1),
      prefix: z.string().default('tollgate:'),
      /** A local file where settlements wait while Redis is away, so a process that stops meanwhile loses none. One per instance. */
      pendingFile: z.string().min(1).optional(),
    })
    .strict(),
]);

const sql = z
  .object({
    databases: z
      .record(
        z.string().regex(/^[A-Za-z0-9_.-]+$/, 'database names are letters, digits, _ . -'),
        z
          .object({
            file: z.string().optional(),
            /** Organizations that reach this database (`*`: every one); absent: every organization may write. */
            access: z.record(z.string().min(1), z.enum(['read', 'write'])).optional(),
          })
          .strict(),
      )
      .default({ main: {} }),
    default: z.string().default('main'),
    auth: z.boolean().default(true),
    maxStatementBytes: z.number().int().positive().default(1_048_576),
    maxRows: z.number().int().positive().default(10_000),
    timeoutMs: z.number().int().positive().default(5_000),
    /** Largest answer in bytes of its values as sent; past it: 400 result_too_large. */
    maxResultBytes: z.number().int().positive().default(64 * 1_048_576),
    /** How long a streamed (NDJSON) answer may hold its database. */
    streamTimeoutMs: z.number().int().positive().default(60_000),
  })
  .strict()
  .refine((s) => s.default in s.databases, { message: 'sql.default must name one of sql.databases', path: ['default'] });

/**
 * The configuration of `tollgate(config)` and of a JSON config file (DESIGN "Configuration").
 * Types are inferred from this schema; nothing past `parseConfig` sees an unvalidated value.
 */
export const configSchema = z
  .object({
    keys: z.array(keyEntry).default([]),
    organizations: z.record(z.string(), organization).default({}),
    providers: z.record(z.string(), provider).default({}),
    models: z.record(z.string(), model).default({}),
    /** When false, only the configured models are served (no default catalog). */
    defaultCatalog: z.boolean().default(true),
    store: store.default({ kind: 'memory' }),
    sql: sql.default({ databases: { main: {} }, default: 'main', auth: true, maxStatementBytes: 1_048_576, maxRows: 10_000, timeoutMs: 5_000, maxResultBytes: 64 * 1_048_576, streamTimeoutMs: 60_000 }),
    recoveryUrl: z.string().default('/console/billing'),
    /** DESIGN "does better": the §7.2 headers on `/v1/messages` errors are off unless this is on. */
    anthropicDenialHeaders: z.boolean().default(false),
    /** Largest accepted request body on the model endpoints. */
    maxBodyBytes: z.number().int().positive().default(20 * 1_048_576),
    /** How long admission may wait for the policy store before answering 503 policy_unavailable. */
    policyTimeoutMs: z.number().int().positive().default(1_000),
  })
  .strict();

export type ConfigInput = z.input<typeof configSchema>;
export type ResolvedConfig = z.output<typeof configSchema>;
export type ProviderConfig = ResolvedConfig['providers'][string];
export type ModelConfig = ResolvedConfig['models'][string];
export type OrganizationConfig = ResolvedConfig['organizations'][string];
export type KeyConfig = ResolvedConfig['keys'][number];
export type ParamRule = z.output<typeof paramRule>;
export type SqlConfig = ResolvedConfig['sql'];
export type StoreConfig = ResolvedConfig['store'];
