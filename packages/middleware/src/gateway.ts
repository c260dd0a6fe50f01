import { RouteBoard, RoutePlans } from './routing/index.js';
import type { ParsedConfig } from './config/index.js';
import { Catalog } from './catalog/index.js';
import { UpstreamClient } from './upstream/index.js';

/** The model half of a runtime: what can be asked for (catalog) and how to reach it (upstream pool). */
export class Gateway {
  readonly catalog: Catalog;
  readonly upstream: UpstreamClient;
  /** Route health for the routing strategies and circuit breakers (README "Routing strategies"). */
  readonly routes = new RouteBoard();
  /** Every alias's routes per client protocol, planned once here rather than per request (issue 19). */
  readonly plans: RoutePlans;

  /** `env` interpolates the default catalog's provider settings (`${NAME}`). */
  constructor(parsed: ParsedConfig, options: { env: NodeJS.ProcessEnv }) {
    this.catalog = new Catalog(parsed, options.env);
    this.plans = new RoutePlans(this.catalog);
    this.upstream = new UpstreamClient(parsed.config.relay);
  }

  async close(): Promise<void> {
    await this.upstream.close();
  }
}
