import type { ErrorFamily } from '../errors/index.js';

/** One endpoint: where it listens, which error envelope it speaks, and whose handler serves it. */
export interface Route<Handler> {
  method: 'GET' | 'POST';
  path: string;
  family: ErrorFamily;
  handler: Handler;
  /**
   * The handler puts the request id in its answer's own headers (one writeHead, no setHeader before it:
   * Node then takes its fast path, ~1 µs a request) and sets it itself before any other writer; the
   * dispatcher sets it on every other route, and on every error it renders.
   */
  writesRequestId?: true;
}

export type RouteMatch<Handler> =
  | { kind: 'found'; route: Route<Handler> }
  | { kind: 'wrong-method'; family: ErrorFamily; allowed: string[] }
  | { kind: 'none' };

/**
 * A static route table, indexed by path once when the middleware is created: matching runs on every
 * request. Paths are compared after the mount prefix was stripped by the host framework (connect and
 * Express set `req.url` relative to the mount point).
 *
 * @example
 * const match = new RouteTable(routes).match('POST', '/v1/messages?beta=true');
 */
export class RouteTable<Handler> {
  readonly #byPath = new Map<string, Route<Handler>[]>();
  /** Each route's match, made once: matching answers a request with no object of its own (issue 19). */
  readonly #found = new Map<Route<Handler>, RouteMatch<Handler>>();

  constructor(routes: readonly Route<Handler>[]) {
    for (const route of routes) {
      this.#byPath.set(route.path, [...(this.#byPath.get(route.path) ?? []), route]);
      this.#found.set(route, Object.freeze({ kind: 'found', route }));
    }
  }

  match(method: string | undefined, url: string | undefined): RouteMatch<Handler> {
    const candidates = this.#byPath.get(pathOf(url));
    const first = candidates?.[0];
    if (!first) return NO_MATCH;
    for (const candidate of candidates) if (candidate.method === method) return this.#found.get(candidate)!;
    // HEAD is GET without the body (RFC 9110 §9.3.2), which Node's server leaves out by itself.
    if (method === 'HEAD') for (const candidate of candidates) if (candidate.method === 'GET') return this.#found.get(candidate)!;
    return { kind: 'wrong-method', family: first.family, allowed: candidates.map((candidate) => candidate.method) };
  }
}

const NO_MATCH = { kind: 'none' } as const;

function pathOf(url: string | undefined): string {
  if (!url) return '/';
  const query = url.indexOf('?');
  const raw = query === -1 ? url : url.slice(0, query);
  return raw.length > 1 && raw.endsWith('/') ? raw.slice(0, -1) : raw;
}
