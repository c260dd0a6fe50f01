import type { ErrorFamily } from '../errors/index.js';

/** One endpoint: where it listens, which error envelope it speaks, and whose handler serves it. */
export interface Route<Handler> {
  method: 'GET' | 'POST';
  path: string;
  family: ErrorFamily;
  handler: Handler;
}

export type RouteMatch<Handler> =
  | { kind: 'found'; route: Route<Handler> }
  | { kind: 'wrong-method'; family: ErrorFamily; allowed: string[] }
  | { kind: 'none' };

/**
 * Matches a request against a static route table. Paths are compared after the mount prefix was
 * stripped by the host framework (connect and Express set `req.url` relative to the mount point).
 *
 * @example
 * const match = matchRoute(routes, 'POST', '/v1/messages?beta=true');
 */
export function matchRoute<Handler>(routes: readonly Route<Handler>[], method: string | undefined, url: string | undefined): RouteMatch<Handler> {
  const candidates = byPathOf(routes).get(pathOf(url)) ?? [];
  const first = candidates[0];
  if (!first) return { kind: 'none' };
  const route = candidates.find((candidate) => candidate.method === method);
  if (route) return { kind: 'found', route };
  return { kind: 'wrong-method', family: first.family, allowed: candidates.map((candidate) => candidate.method) };
}

const indexes = new WeakMap<readonly Route<unknown>[], Map<string, Route<unknown>[]>>();

/** The table indexed by path, built once per table: matching runs on every request. */
function byPathOf<Handler>(routes: readonly Route<Handler>[]): Map<string, Route<Handler>[]> {
  let index = indexes.get(routes);
  if (!index) {
    index = new Map();
    for (const route of routes) index.set(route.path, [...(index.get(route.path) ?? []), route]);
    indexes.set(routes, index);
  }
  return index as Map<string, Route<Handler>[]>;
}

function pathOf(url: string | undefined): string {
  if (!url) return '/';
  const query = url.indexOf('?');
  const raw = query === -1 ? url : url.slice(0, query);
  return raw.length > 1 && raw.endsWith('/') ? raw.slice(0, -1) : raw;
}
