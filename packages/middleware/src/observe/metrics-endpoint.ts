import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MetricsConfig } from '../config/index.js';
import { ServiceError } from '../errors/index.js';
import type { GatewayMetrics } from './gateway-metrics.js';

/**
 * Serves the Prometheus scrape: GET only, and with `auth: {bearer}` only to `Authorization: Bearer <token>`
 * (compared in constant time). Throws ServiceError for the dispatcher to render.
 */
export async function serveMetrics(req: IncomingMessage, res: ServerResponse, config: MetricsConfig, metrics: GatewayMetrics): Promise<void> {
  if (req.method !== 'GET') throw new ServiceError('method_not_allowed', `Method ${req.method} is not allowed here; use GET`);
  if (config.auth !== 'none' && !bearerMatches(req.headers.authorization, config.auth.bearer)) {
    throw new ServiceError('unauthorized', 'The metrics endpoint needs its bearer token (metrics.auth.bearer)');
  }
  const body = await metrics.scrape();
  res.writeHead(200, { 'content-type': metrics.registry.contentType, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
  res.end(body);
}

function bearerMatches(header: string | undefined, token: string): boolean {
  if (!header?.startsWith('Bearer ')) return false;
  const given = Buffer.from(header.slice(7));
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
