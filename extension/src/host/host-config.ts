import type { ConfigInput } from '@tollgate/middleware';
import { refuseEnvReferences } from './refuse-env-references.js';

/** The extension's settings that shape its in-process Tollgate (package.json `contributes.configuration`). */
export interface HostSettings {
  /** Name → file path relative to the workspace, or ":memory:". */
  databases: Record<string, string>;
  providers: Record<string, { kind: 'openai' | 'anthropic' | 'gemini'; baseUrl?: string; headers?: Record<string, string>; responsesApi?: boolean }>;
  models: NonNullable<ConfigInput['models']>;
  defaultCatalog: boolean;
  sessionBudgetUsd: number;
  limits: { rpm?: number; tpm?: number; concurrency?: number };
  sqlTimeoutMs: number;
  sqlMaxRows: number;
}

export const MEMORY = ':memory:';
export const SESSION_ORG = 'editor';

/** The default catalog's providers and the variables their keys come from (DESIGN "Configuration"). */
export const builtInProviderKeys = { openai: 'OPENAI_API_KEY', anthropic: 'ANTHROPIC_API_KEY', gemini: 'GEMINI_API_KEY' } as const;

/** Every provider a key can be stored for: the built-in ones and those from settings. */
export function providerNames(configured: Iterable<string>): string[] {
  return [...new Set([...Object.keys(builtInProviderKeys), ...configured])];
}

/**
 * Builds the Tollgate config for one editor session, and the environment it reads. Provider keys come
 * from SecretStorage into these in-memory objects only: never into settings, files or logs. A built-in
 * provider's key is its usual variable, so a key exported in the shell works too, and one set with the
 * command wins; a provider from settings gets its key only if one is stored (local servers need none).
 * The session key is known by its hash. The organization's wallet is the session budget. A setting that names an
 * environment variable is refused (refuse-env-references.ts): the config expands them, and settings are a workspace's.
 */
export function hostConfig(settings: HostSettings, secrets: { providerKeys: Record<string, string>; sessionKeyHash: string }, baseEnv: NodeJS.ProcessEnv): { config: ConfigInput; env: NodeJS.ProcessEnv } {
  for (const key of ['databases', 'providers', 'models'] as const) refuseEnvReferences(settings[key], `tollgate.${key}`);
  const databases = Object.fromEntries(Object.entries(withScratch(settings.databases)).map(([name, path]) => [name, path === MEMORY || path === '' ? {} : { file: path }]));
  const providers = Object.fromEntries(
    Object.entries(settings.providers).map(([name, provider]) => {
      const apiKey = secrets.providerKeys[name];
      return [name, { ...provider, ...(apiKey ? { apiKey } : {}) }];
    }),
  );
  const env: NodeJS.ProcessEnv = { ...baseEnv };
  for (const [name, variable] of Object.entries(builtInProviderKeys)) {
    const stored = secrets.providerKeys[name];
    if (stored) env[variable] = stored;
  }
  const config: ConfigInput = {
    keys: [{ sha256: secrets.sessionKeyHash, org: SESSION_ORG, id: 'editor-session' }],
    organizations: { [SESSION_ORG]: { wallet: settings.sessionBudgetUsd, limits: settings.limits } },
    providers,
    models: settings.models,
    defaultCatalog: settings.defaultCatalog,
    sql: { databases, default: Object.keys(databases)[0] ?? 'scratch', timeoutMs: settings.sqlTimeoutMs, maxRows: settings.sqlMaxRows },
    recoveryUrl: 'command:tollgate.openBudgetSetting',
  };
  return { config, env };
}

/** At least the scratch database: a session without any configured database still runs SQL. */
export function withScratch(databases: Record<string, string>): Record<string, string> {
  return Object.keys(databases).length > 0 ? databases : { scratch: MEMORY };
}
