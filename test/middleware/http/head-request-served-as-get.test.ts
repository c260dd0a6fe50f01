import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { tollgate, type Tollgate } from '@tollgate/middleware';

const KEY = 'tg-hunt-head-key-001-0123456789abcdef';

function head(port: number, path: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'HEAD', path, headers: { authorization: `Bearer ${KEY}` } }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * `GET /v1/models` is a resource; HEAD on it (uptime monitors, load balancer health checks, `curl -I`) answers
 * `405 method_not_allowed, Allow: GET`. RFC 9110 §9.1: a general-purpose server MUST support HEAD wherever it
 * supports GET, and Node's server already drops the body of a HEAD answer.
 */
describe('HEAD on a GET route of the mounted middleware', () => {
  let gate: Tollgate;
  let server: Server;
  afterEach(async () => {
    server?.closeAllConnections();
    server?.close();
    await gate?.close();
  });

  it('answers HEAD /v1/models like GET, without a body', async () => {
    gate = tollgate({ keys: [{ key: KEY, org: 'acme' }], organizations: { acme: {} } }, { logger: { info() {}, error() {} } });
    const app = express();
    app.use('/ai', gate);
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const got = await fetch(`http://127.0.0.1:${port}/ai/v1/models`, { headers: { authorization: `Bearer ${KEY}` } });
    assert.equal(got.status, 200);
    const answer = await head(port, '/ai/v1/models');
    assert.equal(answer.status, 200, `HEAD answered ${answer.status} (allow: ${String(answer.headers.allow)})`);
    assert.equal(answer.headers['content-type'], got.headers.get('content-type'));
    assert.equal(answer.body, '');
  });
});
