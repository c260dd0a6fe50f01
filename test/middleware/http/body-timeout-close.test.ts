import assert from 'node:assert/strict';
import { connect as connectSocket, type AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { tollgate, type Tollgate } from '@tollgate/middleware';

const KEY = 'tg-hunt-bodytimeout-key-0123456789abcdef';
const BODY_TIMEOUT_MS = 400;

/** RFC 9110 §15.5.9 and README: a 408 closes the connection, also for a small declared body (it was kept alive one more bodyTimeoutMs). */
describe('408 for a stalled small body', () => {
  let gate: Tollgate;
  let server: Server;
  let port: number;
  before(async () => {
    gate = tollgate({ keys: [{ key: KEY, org: 'acme' }], organizations: { acme: { wallet: 10 } }, bodyTimeoutMs: BODY_TIMEOUT_MS }, { logger: { info() {}, error: (m: string, e?: unknown) => console.error(m, e) } });
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

  for (const path of ['/api/sql/query', '/v1/chat/completions', '/v1/messages']) {
    it(`${path}: the 408 says connection: close and the connection closes with it, not one more bodyTimeoutMs later`, async () => {
      const socket = connectSocket(port, '127.0.0.1');
      socket.on('error', () => undefined);
      let text = '';
      let answeredAt = 0;
      let closedAt = 0;
      socket.on('data', (c) => {
        text += c.toString('latin1');
        answeredAt ||= Date.now();
      });
      const closed = new Promise<void>((resolve) => socket.on('close', () => resolve(void (closedAt = Date.now()))));
      await new Promise((r) => socket.once('connect', r));
      // 100 bytes declared (well under the 64 KiB drain limit), 10 sent, then nothing.
      socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nx-api-key: ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"query":1`);
      await Promise.race([closed, new Promise((r) => setTimeout(r, BODY_TIMEOUT_MS * 4))]);
      socket.destroy();
      assert.match(text, /^HTTP\/1\.1 408/, text);
      assert.match(text.toLowerCase(), /\r\nconnection: close\r\n/, text);
      assert.ok(closedAt > 0 && closedAt - answeredAt < BODY_TIMEOUT_MS / 2, `closed ${closedAt ? closedAt - answeredAt : 'never'} ms after the 408`);
    });
  }
});
