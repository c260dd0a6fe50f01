import assert from 'node:assert/strict';
import { connect as connectSocket, type AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { tollgate, type Tollgate } from '@tollgate/middleware';

const KEY = 'tg-hunt-depart-key-0123456789abcdef01';

/** A client gone mid-body is the client's doing: no internal-error log line, no 500 in the metrics (one key could flood both). */
describe('a client that leaves mid-body', () => {
  let gate: Tollgate;
  let server: Server;
  let port: number;
  const errors: string[] = [];
  before(async () => {
    gate = tollgate({ keys: [{ key: KEY, org: 'acme' }], organizations: { acme: { wallet: 10 } }, metrics: { path: '/metrics', auth: 'none' } } as never, { logger: { info() {}, error: (m: string) => void errors.push(m) } });
    server = createServer(gate);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
    await gate.ready();
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await gate.close();
  });
  for (const path of ['/api/sql/query', '/v1/chat/completions', '/v1/messages/count_tokens']) {
    it(`${path}: is not logged or counted as an internal error`, async () => {
      errors.length = 0;
      const socket = connectSocket(port, '127.0.0.1');
      socket.on('error', () => undefined);
      await new Promise((r) => socket.once('connect', r));
      socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nx-api-key: ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"query":`);
      await new Promise((r) => setTimeout(r, 150));
      socket.destroy();
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(errors, []);
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      const internal = metrics.split('\n').filter((l) => l.startsWith('tollgate_requests_total') && /status="500"|reason="internal"/.test(l));
      assert.deepEqual(internal, []);
    });
  }
});
