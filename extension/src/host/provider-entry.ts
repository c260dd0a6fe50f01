import type { HostSettings } from './host-config.js';
import { builtInProviderKeys } from './host-config.js';

export type ProviderKind = HostSettings['providers'][string]['kind'];

export interface NewProvider {
  name: string;
  kind: ProviderKind;
  /** Empty for the kind's own public endpoint. */
  baseUrl: string;
  /** Upstream model names offered through it, each as an alias of the same name. */
  models: string[];
}

/** Provider names are keys in settings and in routes: letters, digits, `_` and `-`. */
const NAME = /^[A-Za-z][\w-]{0,63}$/;

/** Why a name cannot be used, or undefined when it can. */
export function providerNameProblem(value: string, taken: Iterable<string>): string | undefined {
  if (!NAME.test(value)) return 'Letters, digits, _ and -, starting with a letter';
  if ([...taken, ...Object.keys(builtInProviderKeys)].includes(value)) return `"${value}" is taken`;
  return undefined;
}

/** Why a base URL cannot be used (the gateway's config accepts only absolute http(s) URLs), or undefined. */
export function baseUrlProblem(value: string): string | undefined {
  if (value.trim() === '') return undefined;
  try {
    const url = new URL(value.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? undefined : 'An http:// or https:// URL';
  } catch {
    return 'An http:// or https:// URL, e.g. http://localhost:11434/v1';
  }
}

/**
 * The `tollgate.providers` and `tollgate.models` settings with the new provider added: each model it serves
 * becomes a chat alias routed to it (price 0 until the user sets one — a local server costs nothing). An
 * alias already configured is left as it is.
 *
 * @example withProvider({ providers: {}, models: {} }, { name: 'local', kind: 'openai', baseUrl: 'http://localhost:11434/v1', models: ['llama3'] })
 * // { providers: { local: { kind: 'openai', baseUrl: 'http://localhost:11434/v1' } }, models: { llama3: { routes: [{ provider: 'local', model: 'llama3' }] } } }
 */
export function withProvider(settings: Pick<HostSettings, 'providers' | 'models'>, provider: NewProvider): Pick<HostSettings, 'providers' | 'models'> {
  const baseUrl = provider.baseUrl.trim();
  const models = { ...settings.models };
  for (const model of provider.models) models[model] ??= { routes: [{ provider: provider.name, model }] };
  return { providers: { ...settings.providers, [provider.name]: { kind: provider.kind, ...(baseUrl ? { baseUrl } : {}) } }, models };
}

/** "Models it serves" as typed: comma- or space-separated names, without repeats. */
export function modelNames(typed: string): string[] {
  return [...new Set(typed.split(/[\s,]+/).filter(Boolean))];
}
