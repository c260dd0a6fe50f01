import { mergeParamRules, type MergedParams } from '../adapt/index.js';
import type { Catalog, CatalogModel, ModelKind } from '../catalog/index.js';
import type { ModelConfig, ProviderConfig } from '../config/index.js';
import { chatOutputLimitFieldOf, codecFor, framingOf, parseErrorOf, prepareRoute, type ClientProtocol, type Codec, type RouteTarget, type StreamFraming } from '../providers/index.js';
import { UpstreamFailure, type AttemptFailure, type RetryPolicy } from '../upstream/index.js';

/** How a provider is called, whichever endpoint calls it: its retries, timeout and error parser. */
export interface UpstreamRoute {
  provider: ProviderConfig;
  /** Without the request's signal, which withRetries takes on its own. */
  retry: Omit<RetryPolicy, 'signal'>;
  timeoutMs: number;
  parseError(body: unknown): { message?: string; code?: string };
  /** How its streams are framed (SSE, or the provider's own decoder). */
  framing: StreamFraming;
}

/** One route of an alias for one client protocol: everything about it that does not depend on the request. */
export interface RoutePlan extends UpstreamRoute {
  /** The provider's name in the config: a bounded metrics label and the route taken in the access line. */
  providerName: string;
  codec: Codec;
  target: RouteTarget;
  /** The provider's parameter table with the model's rules and output limit laid over it (step 6). */
  params: MergedParams;
  /** `provider/model`, for the route header and the ledger line. */
  route: string;
}

/** An alias served over one client protocol: its routes in failover order and what orders them. */
export interface ModelPlan {
  alias: string;
  /** The client protocol the plan serves (its codecs translate from it). */
  protocol: ClientProtocol;
  config: ModelConfig;
  routes: readonly RoutePlan[];
  /** Each route's weight, in route order (the weighted strategy). */
  weights: readonly number[];
}

/** Output budget when the client gave none: the model's limit, else this (Anthropic requires one). */
export const DEFAULT_OUTPUT_BUDGET = 4_096;
/** The longest wait between two attempts on a route, whatever the provider's Retry-After says. */
const MAX_RETRY_WAIT_MS = 4_000;

const kindOf: Readonly<Record<ClientProtocol, ModelKind>> = { chat: 'chat', messages: 'chat', responses: 'chat', embeddings: 'embedding' };

/**
 * Every alias's route plans for every client protocol, built once when the gateway starts (issue 19): a
 * request looks its plan up instead of finding codecs, merging parameter tables and parsing URLs. An alias a
 * protocol cannot be served on has no plan; resolving it takes the catalog's path, which throws the error
 * the client gets (404 `model_not_found`, 400 `model_not_configured`).
 *
 * @example
 * const plan = new RoutePlans(catalog).resolve('claude-sonnet', 'messages');
 */
export class RoutePlans {
  /** Per protocol, per alias. */
  readonly #plans: Readonly<Record<ClientProtocol, Map<string, ModelPlan>>> = { chat: new Map(), messages: new Map(), responses: new Map(), embeddings: new Map() };
  readonly #upstreams = new Map<string, UpstreamRoute>();

  constructor(private readonly catalog: Catalog) {
    for (const [name, provider] of Object.entries(catalog.providers)) this.#upstreams.set(name, upstreamRouteOf(provider));
    for (const { alias } of catalog.aliases()) {
      for (const protocol of Object.keys(kindOf) as ClientProtocol[]) {
        const plan = this.#tryPlan(alias, protocol);
        if (plan) this.#plans[protocol].set(alias, plan);
      }
    }
  }

  /** Step 4 of the pipeline: the alias's plan for the protocol, or the error to answer. */
  resolve(alias: unknown, protocol: ClientProtocol): ModelPlan {
    const plan = typeof alias === 'string' ? this.#plans[protocol].get(alias) : undefined;
    return plan ?? planOf(this.catalog.resolve(alias, kindOf[protocol]), protocol, this.#upstreams);
  }

  /** How to call a configured provider (by its name in the config) outside a model plan: count_tokens. */
  upstreamOf(providerName: string): UpstreamRoute {
    return this.#upstreams.get(providerName)!;
  }

  #tryPlan(alias: string, protocol: ClientProtocol): ModelPlan | undefined {
    try {
      return planOf(this.catalog.resolve(alias, kindOf[protocol]), protocol, this.#upstreams);
    } catch {
      return undefined; // answered per request by resolve, with the catalog's or the codec table's error
    }
  }
}

function planOf(model: CatalogModel, protocol: ClientProtocol, upstreams: Map<string, UpstreamRoute>): ModelPlan {
  const { alias, config } = model;
  const routes = model.routes.map((route): RoutePlan => {
    const codec = codecFor(protocol, route.provider);
    const target: RouteTarget = {
      provider: route.provider,
      model: route.model,
      alias,
      defaultMaxTokens: config.maxOutputTokens ?? DEFAULT_OUTPUT_BUDGET,
      chatOutputLimitField: chatOutputLimitFieldOf(route.provider),
    };
    // The provider's per-path state (URL parsed, fixed headers with credentials), built here once: a call only adds its body.
    target.calls = { json: prepareRoute(codec, target, false), stream: prepareRoute(codec, target, true) };
    const params = mergeParamRules(codec.params, config.params, { fields: codec.outputLimitFields, max: config.maxOutputTokens });
    const upstream = upstreams.get(route.providerName) ?? upstreamRouteOf(route.provider);
    return { ...upstream, providerName: route.providerName, codec, target, params, route: `${route.providerName}/${route.model}` };
  });
  return { alias, protocol, config, routes, weights: model.routes.map((route) => route.weight) };
}

function upstreamRouteOf(provider: ProviderConfig): UpstreamRoute {
  return {
    provider,
    retry: { retries: provider.maxRetries, baseMs: provider.retryBaseMs, maxMs: MAX_RETRY_WAIT_MS, classify: classifyUpstreamFailure },
    timeoutMs: provider.timeoutMs,
    parseError: parseErrorOf(provider),
    framing: framingOf(provider),
  };
}

/** Only an upstream's transient failures (429, 5xx, unreachable) are retried, after its Retry-After if it sent one. */
function classifyUpstreamFailure(error: unknown): AttemptFailure {
  if (!(error instanceof UpstreamFailure)) return { transient: false };
  return { transient: error.transient, retryAfterMs: error.details.retryAfterMs };
}
