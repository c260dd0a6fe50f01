import { hash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { configSchema, type ConfigInput, type ResolvedConfig } from './config-schema.js';
import { interpolateEnv, type UnsetReference } from './interpolate-env.js';
import { organizationNameProblem } from './organization-name.js';

/** A configuration that cannot start; the message names every offending field. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export interface ParsedConfig {
  config: ResolvedConfig;
  /** Providers whose `${NAME}` references are unset: declared, but not routable (DESIGN). */
  disabledProviders: Set<string>;
}

/**
 * Validates a configuration object: interpolates `${NAME}`, applies defaults, checks cross-references.
 * Throws ConfigError naming each bad field, so a bad config fails at start-up, not on the first request.
 *
 * @example
 * const { config } = parseConfig({ keys: [{ key: '${TOLLGATE_KEY}', org: 'acme' }] });
 */
export function parseConfig(input: ConfigInput | unknown, env: NodeJS.ProcessEnv = process.env): ParsedConfig {
  const { value, unset } = interpolateEnv(input ?? {}, env);
  const disabledProviders = new Set<string>();
  const fatal: string[] = [];
  for (const ref of unset) {
    if (ref.path[0] === 'providers' && typeof ref.path[1] === 'string') disabledProviders.add(ref.path[1]);
    else if (ref.path[0] === 'keys' && typeof ref.path[1] === 'number') continue; // an unset key is simply absent
    else fatal.push(`${formatPath(ref.path)}: environment variable ${ref.variable} is not set`);
  }
  if (fatal.length > 0) throw new ConfigError(`Invalid Tollgate configuration:\n  ${fatal.join('\n  ')}`);

  const badNames = organizationNameProblems(value);
  if (badNames.length > 0) throw new ConfigError(`Invalid Tollgate configuration:\n  ${badNames.join('\n  ')}`);
  const { value: withoutUnsetKeys, keyPosition } = dropUnsetKeys(dropUnsetProviderValues(value, unset), unset);
  const result = configSchema.safeParse(withoutUnsetKeys);
  if (!result.success) throw new ConfigError(`Invalid Tollgate configuration:\n  ${formatIssues(result.error, keyPosition)}`);
  for (const [name, provider] of Object.entries(result.data.providers)) if (provider.disabled) disabledProviders.add(name);
  const config = { ...result.data, providers: markDisabled(result.data.providers, disabledProviders) };
  // Organization names arrive from keys, journals and admin commands: a lookup must never find an
  // inherited member (`toString`), so the table has no prototype at all.
  config.organizations = Object.assign(Object.create(null) as ResolvedConfig['organizations'], config.organizations);
  checkReferences(config, keyPosition);
  return { config, disabledProviders };
}

/**
 * A disabled provider says so in the resolved config (`disabled: true`, no `apiKey`), so a resolved config
 * parsed again stays what it was: a provider whose `${NAME}` was unset never comes back enabled without its
 * key (it would call upstream unauthenticated instead of answering 400 model_not_configured). New objects,
 * never a change to what the caller passed.
 */
function markDisabled(providers: ResolvedConfig['providers'], disabled: Set<string>): ResolvedConfig['providers'] {
  if (disabled.size === 0) return providers;
  const marked: ResolvedConfig['providers'] = {};
  for (const [name, provider] of Object.entries(providers)) {
    if (!disabled.has(name)) {
      marked[name] = provider;
      continue;
    }
    const { apiKey: _unusable, ...rest } = provider;
    marked[name] = { ...rest, disabled: true };
  }
  return marked;
}

/** Reads a JSON config file; relative file paths inside it stay relative to the working directory. */
export function loadConfigFile(file: string, env: NodeJS.ProcessEnv = process.env): ParsedConfig {
  return parseConfig(readConfigFile(file), env);
}

/**
 * Reads a JSON config file as it is written, `${NAME}` references included, for `tollgate(config)` to parse
 * once (the CLI does this).
 *
 * @example
 * const gate = tollgate(readConfigFile('tollgate.config.json'));
 */
export function readConfigFile(file: string): ConfigInput {
  const path = resolve(file);
  let raw: string;
  try {
    raw = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`Cannot read config file ${path}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    throw new ConfigError(`Config file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  return json as ConfigInput;
}

/**
 * A provider's unset `${NAME}` leaves its field out (the provider is disabled): a header or credential that is
 * `undefined` would otherwise fail the schema with "expected string", naming no variable. `value` is the copy
 * interpolateEnv made, so deleting from it changes nothing the caller passed.
 */
function dropUnsetProviderValues(value: unknown, unset: UnsetReference[]): unknown {
  for (const { path } of unset) {
    if (path[0] !== 'providers' || path.length < 3) continue;
    let parent: unknown = value;
    for (const step of path.slice(0, -1)) parent = (parent as Record<string | number, unknown> | undefined)?.[step];
    if (typeof parent === 'object' && parent !== null && !Array.isArray(parent)) delete (parent as Record<string | number, unknown>)[path.at(-1)!];
  }
  return value;
}

/**
 * The config without the keys whose `${NAME}` is unset, and where each remaining key stands in the file, so an
 * error about a later key names the entry the operator wrote (`keys.2`), not its place after the skip.
 */
function dropUnsetKeys(value: unknown, unset: { path: (string | number)[] }[]): { value: unknown; keyPosition: (index: number) => number } {
  const dropped = new Set(unset.filter((ref) => ref.path[0] === 'keys').map((ref) => ref.path[1]));
  const same = (index: number) => index;
  if (dropped.size === 0 || typeof value !== 'object' || value === null) return { value, keyPosition: same };
  const record = value as Record<string, unknown>;
  if (!Array.isArray(record.keys)) return { value, keyPosition: same };
  const kept = record.keys.flatMap((_, index) => (dropped.has(index) ? [] : [index]));
  return { value: { ...record, keys: kept.map((index) => (record.keys as unknown[])[index]) }, keyPosition: (index) => kept[index] ?? index };
}

/**
 * Organization names checked on the raw input, before the schema: zod drops a `__proto__` key of a
 * record silently, and a config must not lose an organization without a word.
 */
function organizationNameProblems(value: unknown): string[] {
  const organizations = (value as { organizations?: unknown } | null)?.organizations;
  if (typeof organizations !== 'object' || organizations === null) return [];
  return Object.keys(organizations).flatMap((name) => {
    const problem = organizationNameProblem(name);
    return problem ? [`organizations: ${problem}`] : [];
  });
}

function checkReferences(config: ResolvedConfig, keyPosition: (index: number) => number): void {
  const problems: string[] = [];
  for (const [alias, model] of Object.entries(config.models)) {
    model.routes.forEach((route, index) => {
      if (!Object.hasOwn(config.providers, route.provider) && !isDefaultProvider(route.provider)) {
        problems.push(`models.${alias}.routes.${index}.provider: provider "${route.provider}" is not declared in "providers"`);
      }
    });
  }
  const firstWithId = new Map<string, number>();
  const firstWithHash = new Map<string, number>();
  config.keys.forEach((key, at) => {
    const index = keyPosition(at);
    // Keys are kept by hash: a second entry for the same key would replace the first, whatever its organization.
    const sha256 = key.sha256 ?? hash('sha256', key.key ?? '', 'hex');
    const same = firstWithHash.get(sha256);
    if (same !== undefined) problems.push(`keys.${index}: the same key as keys.${same}; a key belongs to one organization and is listed once`);
    else firstWithHash.set(sha256, index);
    if (!(key.org in config.organizations)) problems.push(`keys.${index}.org: organization "${key.org}" is not declared in "organizations"`);
    // A revocation, a key's budget and its limits are kept by id (`tollgate admin keys revoke <id>` names no
    // organization): two keys with one id would share them, and revoking one could revoke the other's.
    const first = key.id === undefined ? undefined : firstWithId.get(key.id);
    if (first !== undefined) problems.push(`keys.${index}.id: "${key.id}" is already the id of keys.${first}; key ids must be unique`);
    else if (key.id !== undefined) firstWithId.set(key.id, index);
  });
  if (problems.length > 0) throw new ConfigError(`Invalid Tollgate configuration:\n  ${problems.join('\n  ')}`);
}

/** The default catalog's providers (openai, anthropic, gemini) exist even when not declared. */
function isDefaultProvider(name: string): boolean {
  return name === 'openai' || name === 'anthropic' || name === 'gemini';
}

function formatIssues(error: z.ZodError, keyPosition: (index: number) => number): string {
  return error.issues
    .map((issue) => {
      const path = issue.path as (string | number)[];
      const inFile = path[0] === 'keys' && typeof path[1] === 'number' ? ['keys', keyPosition(path[1]), ...path.slice(2)] : path;
      return `${formatPath(inFile) || '(root)'}: ${issue.message}`;
    })
    .join('\n  ');
}

function formatPath(path: (string | number)[]): string {
  return path.map(String).join('.');
}
