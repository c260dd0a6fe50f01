import { defaultModels } from '@tollgate/middleware';
import type { HostSettings } from '../host/host-config.js';

/** One group of the chat's model picker: the models of one provider, and whether it can answer now. */
export interface ModelGroup {
  label: string;
  ready: boolean;
  models: string[];
}

type CatalogEntry = { kind?: string; routes: readonly { provider: string }[] };

/**
 * The chat picker's models, grouped by the provider of each alias's first route, groups that can answer
 * first ("ready": its key is stored, or it is a configured server with its own base URL, which may need
 * none), the others marked "needs a key". Embedding models are left out: they cannot chat (issue 18 #7).
 * `listed` is GET /v1/models (what the gateway routes); the catalog (defaults, then settings, as the
 * gateway merges them) says each alias's kind and provider.
 *
 * @example
 * modelGroups(['gpt-4o', 'text-embedding-3-small', 'llama3'], settings, new Set(['local']))
 * // [{ label: 'local', ready: true, models: ['llama3'] }, { label: 'openai — needs a key', ready: false, models: ['gpt-4o'] }]
 */
export function modelGroups(listed: readonly string[], settings: Pick<HostSettings, 'models' | 'defaultCatalog' | 'providers'>, keyed: ReadonlySet<string>): ModelGroup[] {
  const catalog: Record<string, CatalogEntry> = { ...(settings.defaultCatalog ? (defaultModels as Record<string, CatalogEntry>) : {}), ...(settings.models as Record<string, CatalogEntry>) };
  const byProvider = new Map<string, string[]>();
  for (const id of listed) {
    const entry = catalog[id];
    if (entry?.kind === 'embedding') continue;
    const provider = entry?.routes[0]?.provider ?? 'other';
    byProvider.set(provider, [...(byProvider.get(provider) ?? []), id]);
  }
  const ready = (provider: string) => keyed.has(provider) || Boolean(settings.providers[provider]?.baseUrl);
  const groups = [...byProvider].map(([provider, models]) => ({ label: ready(provider) ? provider : `${provider} — needs a key`, ready: ready(provider), models }));
  return [...groups.filter((group) => group.ready), ...groups.filter((group) => !group.ready)];
}

/** The model the picker starts with: the remembered or configured one if still offered, else the first ready one. */
export function startingModel(groups: readonly ModelGroup[], preferred: readonly (string | undefined)[]): string | undefined {
  const offered = groups.flatMap((group) => group.models);
  return preferred.find((model) => model && offered.includes(model)) ?? groups.find((group) => group.ready)?.models[0] ?? offered[0];
}
