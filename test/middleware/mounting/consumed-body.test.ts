import assert from 'node:assert/strict';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import connect from 'connect';
import { tollgate, type Tollgate } from '@tollgate/middleware';

const KEY = 'tg-hunt-mount-key-0001-0123456789abcdef';
const config = { keys: [{ key: KEY, org: 'acme' }], organizations: { acme: {} }, bodyTimeoutMs: 500 };

async function listen(handler: RequestListener): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}
const sql = (url: string, body: string, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}`, ...headers }, body, signal: AbortSignal.timeout(3000) });

/**
 * A host middleware that read the body itself and left no `req.body` (a webhook signature check keeping `rawBody`):
 * the body's 'end' is past, so Tollgate answers at once (422, naming the middleware in front) instead of waiting
 * for it for ever — bodyTimeoutMs is never armed on a request that looks complete.
 */
describe('mounted behind a middleware that consumed the body', () => {
  let gate: Tollgate;
  let server: Server | undefined;
  const errors: string[] = [];
  beforeEach(() => {
    gate = tollgate(config, { logger: { info() {}, error: (m: string) => void errors.push(m) } });
  });
  afterEach(async () => {
    server?.closeAllConnections();
    server?.close();
    await gate.close();
  });

  it('answers 422 at once, not never, when the body was read without setting req.body', async () => {
    const app = connect();
    app.use((req, _res, next) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        (req as { rawBody?: string }).rawBody = raw;
        next();
      });
    });
    app.use(gate);
    let url: string;
    ({ url, server } = await listen(app));
    const started = Date.now();
    const response = await sql(`${url}/api/sql/query`, JSON.stringify({ query: 'SELECT 1' })).catch((e: unknown) => e);
    assert.ok(response instanceof Response, `no answer after ${Date.now() - started} ms: ${String(response)}`);
    assert.equal(response.status, 422);
    assert.match(JSON.stringify(await response.json()), /already read by a middleware in front of Tollgate/);
    assert.deepEqual(errors, []);
  });
});

