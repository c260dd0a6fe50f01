import type { ServerResponse } from 'node:http';

/**
 * Writes a complete JSON response. Headers already sent (a stream in progress) make this a no-op
 * so that a late error can never corrupt a response.
 *
 * @example
 * sendJson(res, 200, { type: 'ok', context: {} });
 */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  const payload = JSON.stringify(body);
  // The fixed headers before the spread: `{ ...headers, more }` gives each object a hidden class of its own in V8.
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers });
  res.end(payload);
}
