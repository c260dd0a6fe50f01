import { configSchema, interpolateEnv, type ModelConfig, type ParsedConfig, type ProviderConfig } from '../config/index.js';
import { ServiceError } from '../errors/index.js';
import { defaultModels, defaultProviders } from './default-catalog.js';

/** A model alias with the routes that can serve it now. */
export interface CatalogModel {
  alias: string;
  config: ModelConfig;
  /** Routes whose provider is enabled, in failover order. */
  routes: { providerName: string; provider: ProviderConfig; model: string; weight: number }[];
}

export type ModelKind = ModelConfig['kind'];

/**
 * The models clients may name: the default catalog merged with the config's `models` (config wins),
 * and the providers they route to. Raw provider identifiers are not aliases (contract §4.2 rule 1).
 *
 * @example
 * const model = catalog.resolve('claude-sonnet', 'chat');
 */
export class Catalog {
  readonly providers: Record<string, ProviderConfig>;
  readonly #models: Map<string, ModelConfig>;
  readonly #disabled: Set<string>;

  constructor(parsed: ParsedConfig, env: NodeJS.ProcessEnv) {
    const { config } = parsed;
    this.#disabled = new Set(parsed.disabledProviders);
    this.providers = { ...config.providers };
    for (const [name, input] of Object.entries(defaultProviders)) {
      if (name in this.providers) continue;
      const { value, unset } = interpolateEnv(input, env);
      if (unset.length > 0) this.#disabled.add(name);
      this.providers[name] = configSchema.shape.providers.parse({ [name]: unset.length > 0 ? { kind: input.kind } : value })[name]!;
    }
    const defaults = config.defaultCatalog ? configSchema.shape.models.parse(defaultModels) : {};
    this.#models = new Map(Object.entries({ ...defaults, ...config.models }).filter(([, model]) => !model.disabled));
  }

  /** Every alias, in catalog order, as GET /v1/models lists them. */
  aliases(): { alias: string; config: ModelConfig }[] {
    return [...this.#models].map(([alias, config]) => ({ alias, config }));
  }

  /**
   * Step 4 of the pipeline: 404 `model_not_found` for anything that is not an alias of this kind,
   * 400 `model_not_configured` for an alias none of whose providers is enabled.
   */
  resolve(alias: unknown, kind: ModelKind): CatalogModel {
    const name = typeof alias === 'string' ? alias : '';
    const config = this.#models.get(name);
    if (!config || config.kind !== kind) {
      throw new ServiceError('model_not_found', `The model '${name}' does not exist; use an alias from GET /v1/models`, { param: 'model' });
    }
    const routes = config.routes
      .filter((route) => !this.#disabled.has(route.provider) && this.providers[route.provider])
      .map((route) => ({ providerName: route.provider, provider: this.providers[route.provider]!, model: route.model, weight: route.weight ?? 1 }));
    if (routes.length === 0) {
      throw new ServiceError('model_not_configured', `The model '${name}' is in the catalog but no provider for it is configured right now`, { param: 'model' });
    }
    return { alias: name, config, routes };
  }
}
