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

/** Where each kind's own API is, when a provider names no `baseUrl` (the middleware's provider definitions). */
const kindOrigins: Record<HostSettings['providers'][string]['kind'], string> = {
  openai: 'https://api.openai.com',
  anthropic: 'https://api.anthropic.com',
  gemini: 'https://generativelanguage.googleapis.com',
};

/**
 * A key from SecretStorage and the origin it was stored for. SecretStorage is shared by every workspace, and a
 * workspace's settings say where a provider is: a key goes only to the origin it was stored for. A plain string
 * is a key stored before keys named their origin: a built-in provider's is taken as its own API's.
 */
export type StoredKey = string | { key: string; origin: string };

/** The origin a provider's calls go to, under the settings: its `baseUrl`'s, else its kind's own API's. */
export function providerOrigin(name: string, providers: HostSettings['providers']): string | undefined {
  const provider = Object.hasOwn(providers, name) ? providers[name] : undefined;
  if (provider?.baseUrl) {
    try {
      return new URL(provider.baseUrl).origin;
    } catch {
      return undefined;
    }
  }
  const kind = provider?.kind ?? (Object.hasOwn(builtInProviderKeys, name) ? (name as keyof typeof builtInProviderKeys) : undefined);
  return kind ? kindOrigins[kind] : undefined;
}

/** The key to send to provider `name`, if the key stored for it was stored for where it now points. */
function keyFor(name: string, stored: StoredKey | undefined, providers: HostSettings['providers']): string | undefined {
  if (stored === undefined) return undefined;
  const origin = providerOrigin(name, providers);
  if (typeof stored !== 'string') return stored.origin === origin ? stored.key : undefined;
  return !Object.hasOwn(builtInProviderKeys, name) || origin === kindOrigins[name as keyof typeof builtInProviderKeys] ? stored : undefined;
}

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
export function hostConfig(settings: HostSettings, secrets: { providerKeys: Record<string, StoredKey>; sessionKeyHash: string }, baseEnv: NodeJS.ProcessEnv): { config: ConfigInput; env: NodeJS.ProcessEnv; withheldKeys: string[] } {
  for (const key of ['databases', 'providers', 'models'] as const) refuseEnvReferences(settings[key], `tollgate.${key}`);
  const databases = Object.fromEntries(Object.entries(withScratch(settings.databases)).map(([name, path]) => [name, path === MEMORY || path === '' ? {} : { file: path }]));
  const keys = Object.fromEntries(Object.entries(secrets.providerKeys).map(([name, stored]) => [name, keyFor(name, stored, settings.providers)]));
  const withheldKeys = Object.keys(secrets.providerKeys).filter((name) => keys[name] === undefined);
  const providers = Object.fromEntries(
    Object.entries(settings.providers).map(([name, provider]) => {
      const apiKey = keys[name];
      return [name, { ...provider, ...(apiKey ? { apiKey } : {}) }];
    }),
  );
  const env: NodeJS.ProcessEnv = { ...baseEnv };
  for (const [name, variable] of Object.entries(builtInProviderKeys)) {
    const stored = keys[name];
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
  return { config, env, withheldKeys };
}

/** At least the scratch database: a session without any configured database still runs SQL. */
export function withScratch(databases: Record<string, string>): Record<string, string> {
  return Object.keys(databases).length > 0 ? databases : { scratch: MEMORY };
}
