import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { startGateway, TEST_KEY, type RunningGateway } from '../../support/gateway.js';

/**
 * A model request's body is read straight from Node's buffer when it arrived with its headers (http/read-body.ts):
 * an error answered after that read keeps the keep-alive connection, as after a body read through its events —
 * the dispatcher closes a connection only for a body that never finished arriving (tollgate.ts unreadBodyHeaders).
 */
describe('an error answered after the body was read', function () {
  let gateway: RunningGateway;
  before(async () => {
    gateway = await startGateway({ defaultCatalog: false, keys: [{ key: TEST_KEY, org: 'acme' }], organizations: { acme: {} }, bodyTimeoutMs: 150 });
  });
  after(() => gateway.close());

  function request(body: string): string {
    return `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nauthorization: Bearer ${TEST_KEY}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  }

  function statusLines(socket: Socket, count: number): Promise<string[]> {
    let received = '';
    return new Promise((resolve, reject) => {
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString();
        const lines = received.match(/HTTP\/1\.1 \d+/g) ?? [];
        if (lines.length >= count) resolve(lines);
      });
      socket.on('close', () => reject(new Error(`connection closed after: ${received.match(/HTTP\/1\.1 \d+/g)?.join(', ')}`)));
    });
  }

  it('keeps its keep-alive connection past the body deadline for the next request', async () => {
    const socket = connect(Number(new URL(gateway.url).port), '127.0.0.1');
    try {
      const answers = statusLines(socket, 2);
      socket.write(request(JSON.stringify({ model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] })));
      // Past the body deadline (150 ms) a connection still waiting for a body would be closed.
      await new Promise((resolve) => setTimeout(resolve, 400));
      socket.write(request(JSON.stringify({ model: 'm', messages: [] })));
      assert.deepEqual(await answers, ['HTTP/1.1 404', 'HTTP/1.1 422']);
    } finally {
      socket.destroy();
    }
  });
});
