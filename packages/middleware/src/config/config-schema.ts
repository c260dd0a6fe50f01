import { z } from 'zod';
import { paramRule } from '../adapt/param-rule.js';
import { providerSettings } from '../providers/provider-settings.js';
import { relayDefaults, relaySettings, timerMs } from '../upstream/relay-settings.js';
import { keyStrengthProblem } from './key-strength.js';
import { organizationNameProblem } from './organization-name.js';

/** Organization names follow one rule everywhere (config-schema, admin operations): see organization-name.ts. */
const organizationName = z.string().superRefine((name, ctx) => {
  const problem = organizationNameProblem(name);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

const limits = z
  .object({
    rpm: z.number().int().positive().optional(),
    tpm: z.number().int().positive().optional(),
    concurrency: z.number().int().positive().optional(),
  })
  .strict();

const keyEntry = z
  .object({
    key: z
      .string()
      .superRefine((key, ctx) => {
        const problem = keyStrengthProblem(key);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
      .optional(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/, 'sha256 must be 64 lowercase hex digits').optional(),
    id: z.string().min(1).optional(),
    org: organizationName,
    /** `sql:read` reaches the SQL endpoint for statements that cannot write (README "Databases and organizations"). */
    /** `admin` opens the console (README "Console") for the key's organization; it never reaches the model or SQL endpoints by itself. */
    scopes: z.array(z.enum(['models', 'sql', 'sql:read', 'admin'])).default(['models', 'sql']),
    /** The key's own limits, checked after its organization's (README "Per-key limits and budgets"). */
    limits: limits.optional(),
    /** The key's spend per calendar period (UTC), in USD. */
    budget: z.object({ usd: z.number().positive().max(9_007_199_254), period: z.enum(['day', 'week', 'month']) }).strict().optional(),
  })
  .strict()
  .refine((entry) => (entry.key === undefined) !== (entry.sha256 === undefined), {
    message: 'give exactly one of "key" or "sha256"',
  });

const organization = z
  .object({
    // Balances are integer micro-dollars and must stay exact (safe integers): about USD 9 billion at most.
    wallet: z.number().min(-9_007_199_254).max(9_007_199_254).default(0),
    /** USD the wallet may go below zero by: admission reserves each request's worst case against wallet + overdraft (README "Reservations"). */
    overdraft: z.number().nonnegative().max(9_007_199_254).default(0),
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
    limits: limits.default({}),
  })
  .strict();

const model = z
  .object({
    routes: z.array(z.object({ provider: z.string().min(1), model: z.string().min(1), weight: z.number().positive().optional() }).strict()).min(1),
    /** How the routes are ordered per request (README "Routing strategies"); failover before the first byte always applies. */
    strategy: z.enum(['failover', 'weighted', 'least-busy', 'lowest-latency']).default('failover'),
    /** A route failing this many requests in a row (after retries) is taken out for the cool-down. */
    circuitBreaker: z.object({ failures: z.number().int().positive().default(3), coolDownMs: z.number().int().positive().default(30_000) }).strict().default({ failures: 3, coolDownMs: 30_000 }),
    kind: z.enum(['chat', 'embedding']).default('chat'),
    billing: z.enum(['wallet', 'included']).default('wallet'),
    /**
     * USD per million tokens. `cachedInput` (prompt tokens read from the provider's cache) and
     * `cacheWrite` (written to it) default to `input`, so a price without them bills as before.
     */
    price: z
      .object({ input: z.number().nonnegative(), output: z.number().nonnegative().default(0), cachedInput: z.number().nonnegative().optional(), cacheWrite: z.number().nonnegative().optional() })
      .strict()
      .default({ input: 0, output: 0 }),
    maxOutputTokens: z.number().int().positive().optional(),
    params: z.record(z.string(), paramRule).default({}),
    /** Set by a config to remove a default-catalog alias. */
    disabled: z.boolean().optional(),
  })
  .strict();

const store = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('memory'),
      file: z.string().optional(),
      /** With `file`: a snapshot replaces the journal once it passes this size (bounds start-up). */
      snapshotAfterBytes: z.number().int().min(4096).optional(),
      /** With `file`: the largest ledger file before the next one is started. */
      ledgerFileBytes: z.number().int().min(4096).optional(),
    })
    .strict(),
  z
    .object({
      kind: z.literal('redis'),
      /** One Redis server… */
      url: z.string().min(1).optional(),
      /** …or the seed nodes of a Redis Cluster (`redis://host:port` each). */
      cluster: z.array(z.string().min(1)).min(1).optional(),
      prefix: z.string().default('tollgate:'),
      /** A local file where settlements wait while Redis is away, so a process that stops meanwhile loses none. One per instance. */
      pendingFile: z.string().min(1).optional(),
      /**
       * Where this instance exports the ledger streams before trimming them from Redis: rotated ledger
       * files in `dir`, every `exportEveryMs`. `false` keeps the streams whole (an operator reads them).
       */
      ledger: z
        .union([
          z.literal(false),
          z.object({ dir: z.string().min(1).default('data/ledger'), maxBytes: z.number().int().positive().optional(), exportEveryMs: timerMs().default(1_000) }).strict(),
        ])
        .default({ dir: 'data/ledger', exportEveryMs: 1_000 }),
    })
    .strict()
    .refine((s) => (s.url === undefined) !== (s.cluster === undefined), { message: 'a redis store needs either url or cluster', path: ['url'] }),
]);

const sql = z
  .object({
    databases: z
      .record(
        z.string().regex(/^[A-Za-z0-9_.-]+$/, 'database names are letters, digits, _ . -'),
        z.union([
          z
            .object({
              /** sql.js in a worker thread, the default kind: `file`, or in memory. */
              kind: z.literal('sqljs').optional(),
              file: z.string().optional(),
              /** A write that would grow the database file past this answers 400 database_full and changes nothing. */
              maxDatabaseBytes: z.number().int().positive().optional(),
              /** Organizations that reach this database (`*`: every one); absent: every organization may write. */
              access: z.record(z.string().min(1), z.enum(['read', 'write'])).optional(),
            })
            .strict(),
          z
            .object({
              /** A PostgreSQL server (README "PostgreSQL"): several Tollgate instances share it. */
              kind: z.literal('postgres'),
              url: z.string().regex(/^postgres(ql)?:\/\//, 'a postgres url starts with postgres:// or postgresql://'),
              /**
               * Connections to the server (`max`; a request holds one while it runs), and how long one a request left
               * may sit idle before its session is reset in the background (`idleResetMs`; its next request resets it
               * first otherwise: README "PostgreSQL", "Session isolation").
               */
              pool: z
                .object({ max: z.number().int().positive().max(1000).default(10), idleResetMs: z.number().int().nonnegative().max(60_000).default(25) })
                .strict()
                .default({ max: 10, idleResetMs: 25 }),
              access: z.record(z.string().min(1), z.enum(['read', 'write'])).optional(),
            })
            .strict(),
        ]),
      )
      .default({ main: {} }),
    default: z.string().default('main'),
    auth: z.boolean().default(true),
    maxStatementBytes: z.number().int().positive().default(1_048_576),
    maxRows: z.number().int().positive().default(10_000),
    timeoutMs: timerMs().default(5_000),
    /** A page-journal segment past this size is checkpointed into the database file (also bounds recovery). */
    journalSegmentBytes: z.number().int().min(65_536).default(16 * 1_048_576),
    /** Largest answer in bytes of its values as sent; past it: 400 result_too_large. */
    maxResultBytes: z.number().int().positive().default(64 * 1_048_576),
    /** How long a streamed (NDJSON) answer may hold its database. */
    streamTimeoutMs: timerMs().default(60_000),
  })
  .strict()
  .refine((s) => Object.hasOwn(s.databases, s.default), { message: 'sql.default must name one of sql.databases', path: ['default'] });

const MIB = 1_048_576;

const idempotencyDefaults = { maxEntries: 10_000, maxBytes: 64 * MIB, maxAnswerBytes: 4 * MIB };

const idempotency = z
  .object({
    maxEntries: z.number().int().positive().default(idempotencyDefaults.maxEntries),
    maxBytes: z.number().int().positive().default(idempotencyDefaults.maxBytes),
    maxAnswerBytes: z.number().int().positive().max(64 * MIB).default(idempotencyDefaults.maxAnswerBytes),
  })
  .strict();

/**
 * The Prometheus endpoint (README "Operating"). Auth is a required, explicit choice: a bearer token as
 * strong as an API key, or "none" for a scrape path only a private network reaches.
 */
const metrics = z
  .object({
    path: z.string().regex(/^\/[A-Za-z0-9/_.-]*$/, 'a path starting with /').default('/metrics'),
    auth: z.union([
      z.literal('none'),
      z
        .object({
          bearer: z.string().superRefine((token, ctx) => {
            const problem = keyStrengthProblem(token);
            if (problem) ctx.addIssue({ code: 'custom', message: problem });
          }),
        })
        .strict(),
    ]),
  })
  .strict();

/**
 * The operator's console (README "Console"): opt-in, served under `path`; sessions of admin keys live at
 * most `sessionMinutes`, and at most `maxSessions` are held (the oldest is dropped), so state stays bounded.
 */
const consoleOption = z
  .object({
    path: z.string().regex(/^\/[A-Za-z0-9/_.-]*[A-Za-z0-9_.-]$/, 'a path starting with / and not ending with /').default('/console'),
    sessionMinutes: z.number().int().positive().max(24 * 60).default(60),
    maxSessions: z.number().int().positive().max(100_000).default(1_000),
  })
  .strict();

/**
 * The configuration of `tollgate(config)` and of a JSON config file (DESIGN "Configuration").
 * Types are inferred from this schema; nothing past `parseConfig` sees an unvalidated value.
 */
export const configSchema = z
  .object({
    keys: z.array(keyEntry).default([]),
    organizations: z.record(organizationName, organization).default({}),
    providers: z.record(z.string(), providerSettings).default({}),
    models: z.record(z.string(), model).default({}),
    /** When false, only the configured models are served (no default catalog). */
    defaultCatalog: z.boolean().default(true),
    store: store.default({ kind: 'memory' }),
    sql: sql.default({ databases: { main: {} }, default: 'main', auth: true, maxStatementBytes: 1_048_576, maxRows: 10_000, timeoutMs: 5_000, journalSegmentBytes: 16 * 1_048_576, maxResultBytes: 64 * 1_048_576, streamTimeoutMs: 60_000 }),
    /**
     * Sent as the `X-Service-Recovery-Url` header: control characters cannot be (a config error), letters past
     * ASCII are percent-encoded as a browser would, so every 402 carries it.
     */
    recoveryUrl: z
      .string()
      .regex(/^[^\x00-\x1f\x7f]*$/, 'a URL without control characters (a newline left by the environment?): it is sent as the X-Service-Recovery-Url header')
      .transform((url) => url.replace(/[^\x00-\x7f]+/gu, encodeURIComponent))
      .default('/console/billing'),
    /** DESIGN "does better": the §7.2 headers on `/v1/messages` errors are off unless this is on. */
    anthropicDenialHeaders: z.boolean().default(false),
    /** Largest accepted request body on the model endpoints. */
    maxBodyBytes: z.number().int().positive().default(20 * 1_048_576),
    /** How long a request body may take to arrive, from the first byte read; past it 408 and the connection is closed. */
    bodyTimeoutMs: timerMs().default(30_000),
    /** How long admission may wait for the policy store before answering 503 policy_unavailable. */
    policyTimeoutMs: timerMs().default(1_000),
    /** Bounds on relaying: what one provider answer and one slow client may cost (README "Relay limits"). */
    relay: relaySettings.default(relayDefaults),
    /** Opt-in Prometheus endpoint; absent, no metric is counted (README "Operating"). */
    metrics: metrics.optional(),
    /** Opt-in OpenTelemetry spans through @opentelemetry/api (a no-op unless the host registers an SDK). */
    tracing: z.boolean().default(false),
    /** Idempotency-Key records (README "Idempotency keys"): the bounds (the memory store's in all, the Redis store's per organization), and the largest answer kept. */
    idempotency: idempotency.default(idempotencyDefaults),
    /** Opt-in operator's console for admin keys (README "Console"); absent, nothing is served there. */
    console: consoleOption.optional(),
  })
  .strict();

export type ConfigInput = z.input<typeof configSchema>;
export type ResolvedConfig = z.output<typeof configSchema>;
export type ModelConfig = ResolvedConfig['models'][string];
export type OrganizationConfig = ResolvedConfig['organizations'][string];
export type KeyConfig = ResolvedConfig['keys'][number];
export type SqlConfig = ResolvedConfig['sql'];
export type StoreConfig = ResolvedConfig['store'];
export type MetricsConfig = NonNullable<ResolvedConfig['metrics']>;
export type { ParamRule } from '../adapt/param-rule.js';
export type { ProviderConfig } from '../providers/provider-settings.js';
export type { RelayConfig } from '../upstream/relay-settings.js';
export type ConsoleConfig = NonNullable<ResolvedConfig['console']>;
