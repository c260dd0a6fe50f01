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
  const path = pathOf(url);
  const candidates = routes.filter((route) => route.path === path);
  const first = candidates[0];
  if (!first) return { kind: 'none' };
  const route = candidates.find((candidate) => candidate.method === method);
  if (route) return { kind: 'found', route };
  return { kind: 'wrong-method', family: first.family, allowed: candidates.map((candidate) => candidate.method) };
}

function pathOf(url: string | undefined): string {
  const raw = (url ?? '/').split('?')[0] ?? '/';
  return raw.length > 1 && raw.endsWith('/') ? raw.slice(0, -1) : raw;
}
