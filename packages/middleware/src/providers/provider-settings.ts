import { z } from 'zod';
import { providerKinds } from './registry.js';

/**
 * What an upstream request header can carry (RFC 9110 field-value; Node and undici refuse the rest): a secret
 * read from a file or a CRLF .env through `${NAME}` often ends in a newline, and would fail every request.
 * The message never repeats the value: these are secrets.
 */
const headerValue = z.string().regex(/^(?:[\x21-\x7e\x80-\xff](?:[\t\x20-\x7e\x80-\xff]*[\x21-\x7e\x80-\xff])?)?$/, 'is sent in an HTTP header: no control characters (a newline left by the environment?), no leading or trailing whitespace, no letters past U+00FF');
const headerName = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'an HTTP header name: letters, digits and !#$%&\'*+.^_`|~- only');

/** One provider's settings (README "Configuration"); the config composes them under `providers`. */
export const providerSettings = z
  .object({
    /** A registered provider kind (providers/registry.ts). */
    kind: z.enum(providerKinds),
    /** An http(s) URL: `localhost:11434/v1` (no scheme) is a URL of scheme `localhost:` to z.url(), and no request could use it. */
    baseUrl: z.url({ protocol: /^https?$/, message: 'an http:// or https:// URL, such as http://127.0.0.1:11434/v1' }).optional(),
    apiKey: headerValue.optional(),
    /** `bedrock`: the AWS region signed for and called (default: AWS_REGION, AWS_DEFAULT_REGION, us-east-1). */
    region: z.string().min(1).optional(),
    /**
     * `bedrock`: AWS credentials for SigV4 (default: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN).
     * Each may be absent here: a `${NAME}` that is unset disables the provider, as an unset `apiKey` does.
     */
    credentials: z.object({ accessKeyId: headerValue.min(1).optional(), secretAccessKey: z.string().min(1).optional(), sessionToken: headerValue.min(1).optional() }).strict().optional(),
    /** Extra headers sent upstream (e.g. an OpenAI organization id). */
    headers: z.record(headerName, headerValue).default({}),
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
    /**
     * `openai`: the chat field an output budget goes in when Tollgate sets one (a client that set none, a Messages or
     * Responses request translated to chat). Default: `max_completion_tokens` for OpenAI's own hosts (its reasoning
     * models refuse `max_tokens`), `max_tokens` for other OpenAI-compatible servers (not all know the newer field).
     */
    outputLimitField: z.enum(['max_tokens', 'max_completion_tokens']).optional(),
    /** Not routable: set by the parser when a `${NAME}` of the provider is unset, or by hand. */
    disabled: z.boolean().optional(),
  })
  .strict();

export type ProviderConfig = z.output<typeof providerSettings>;
