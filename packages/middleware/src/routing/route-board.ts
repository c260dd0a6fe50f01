import { endWithin } from '../runtime-clock.js';

/** How an alias orders its routes for a request (README "Routing strategies"). */
export type RoutingStrategy = 'failover' | 'weighted' | 'least-busy' | 'lowest-latency';

export interface CircuitBreaker {
  /** Consecutive failed requests (after their retries) that take a route out. */
  failures: number;
  coolDownMs: number;
}

interface RouteHealth {
  inFlight: number;
  /** Exponentially weighted moving average of time to first byte, ms; undefined until measured. */
  ttfbMs: number | undefined;
  consecutiveFailures: number;
  /** Epoch ms until which the route is out (circuit open). */
  openUntil: number;
  /** The cool-down it was taken out for: it is never out for longer from any instant (see outAt). */
  coolDownMs: number;
}

/** Weight of the newest sample in the time-to-first-byte average. */
const EWMA_ALPHA = 0.2;

/**
 * Per-process health of every route: requests in flight, an EWMA of time to first byte, and a circuit
 * breaker. `order` turns an alias's strategy into the order its routes are tried in; failover to the next
 * route on a transient failure before the first byte still applies, whatever the strategy.
 *
 * @example
 * const order = board.order('gpt', 3, 'weighted', [3, 1, 1], breaker, clock.now());
 */
export class RouteBoard {
  readonly #health = new Map<string, RouteHealth[]>();

  constructor(private readonly random: () => number = Math.random) {}

  /**
   * Route indices in the order to try: routes whose circuit is open come last (tried only if every
   * other route failed), the others ordered by the strategy.
   */
  order(alias: string, count: number, strategy: RoutingStrategy, weights: readonly number[], now: number): number[] {
    const health = this.#of(alias, count);
    const open = (i: number) => outAt(health[i]!, now);
    const ready: number[] = [];
    const resting: number[] = [];
    for (let i = 0; i < count; i++) (open(i) ? resting : ready).push(i);
    orderers[strategy](ready, health, weights, this.random);
    return ready.concat(resting);
  }

  started(alias: string, index: number): void {
    const route = this.#route(alias, index);
    if (route) route.inFlight += 1;
  }

  /** The route's first byte arrived after `ms`. */
  firstByte(alias: string, index: number, ms: number): void {
    const route = this.#route(alias, index);
    if (!route) return;
    route.ttfbMs = route.ttfbMs === undefined ? ms : route.ttfbMs + EWMA_ALPHA * (ms - route.ttfbMs);
  }

  /**
   * The request on this route ended: `failed` when it failed transiently after its retries, undefined when its
   * client left first (no verdict on the route: its streak is kept).
   */
  ended(alias: string, index: number, failed: boolean | undefined, breaker: CircuitBreaker, now: number): void {
    const route = this.#route(alias, index);
    if (!route) return;
    route.inFlight -= 1;
    if (failed === undefined) return;
    if (!failed) {
      route.consecutiveFailures = 0;
      return;
    }
    route.consecutiveFailures += 1;
    if (route.consecutiveFailures >= breaker.failures) {
      route.openUntil = now + breaker.coolDownMs;
      route.coolDownMs = breaker.coolDownMs;
      // After the cool-down one more failure takes it out again at once; a success closes it.
      route.consecutiveFailures = breaker.failures - 1;
    }
  }

  #of(alias: string, count: number): RouteHealth[] {
    let health = this.#health.get(alias);
    if (!health || health.length !== count) {
      health = Array.from({ length: count }, () => ({ inFlight: 0, ttfbMs: undefined, consecutiveFailures: 0, openUntil: 0, coolDownMs: 0 }));
      this.#health.set(alias, health);
    }
    return health;
  }

  #route(alias: string, index: number): RouteHealth | undefined {
    return this.#health.get(alias)?.[index];
  }
}

/**
 * Whether a route is out at `now`: until its cool-down's end, which is never more than the cool-down away. A wall
 * clock stepped back (an NTP correction of a clock a day fast) would otherwise keep a route that recovered out for
 * the length of the step; the end moves back with the clock instead, so the step adds at most one cool-down.
 */
function outAt(route: RouteHealth, now: number): boolean {
  route.openUntil = endWithin(route.openUntil, route.coolDownMs, now);
  return route.openUntil > now;
}

type Orderer = (indices: number[], health: RouteHealth[], weights: readonly number[], random: () => number) => void;

/** Each strategy as one ordering, in place; ties keep the configured (failover) order. */
const orderers: Record<RoutingStrategy, Orderer> = {
  failover: () => undefined,
  weighted: (indices, _health, weights, random) => {
    if (indices.length < 2) return;
    const total = indices.reduce((sum, i) => sum + (weights[i] ?? 1), 0);
    let pick = random() * total;
    let chosen = 0;
    for (let k = 0; k < indices.length; k++) {
      pick -= weights[indices[k]!] ?? 1;
      if (pick < 0) {
        chosen = k;
        break;
      }
    }
    // The drawn route first; the others stay in failover order behind it.
    const [first] = indices.splice(chosen, 1);
    indices.unshift(first!);
  },
  'least-busy': (indices, health) => {
    indices.sort((a, b) => health[a]!.inFlight - health[b]!.inFlight);
  },
  // An unmeasured route counts as fastest, so every route gets measured.
  'lowest-latency': (indices, health) => {
    indices.sort((a, b) => (health[a]!.ttfbMs ?? 0) - (health[b]!.ttfbMs ?? 0));
  },
};
