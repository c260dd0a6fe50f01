import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { connect as connectSocket, type AddressInfo, type Socket } from 'node:net';
import { tollgate, type Tollgate } from '@tollgate/middleware';

const KEY = 'tg-unread-answer-key-0123456789abcdef';
/** A `hex(randomblob(n))` answer: a string of 2n characters. */
const hexOf = (bytes: number) => `SELECT hex(randomblob(${bytes})) AS big`;

/** A raw client asking for a large SQL answer, paused: it reads nothing until the test says so. */
async function askWithoutReading(port: number, query: string): Promise<Socket> {
  const socket = connectSocket(port, '127.0.0.1');
  socket.on('error', () => undefined);
  socket.pause();
  await once(socket, 'connect');
  const body = JSON.stringify({ query });
  socket.write(`POST /api/sql/query HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
  return socket;
}

function openConnections(server: Server): Promise<number> {
  return new Promise((resolve, reject) => server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
}

/**
 * http/unread-answer.ts: an answer its client does not read would stay in the server's memory with its connection
 * (the request's slot already free); once none of it moves for relay.maxPausedStreamMs the connection is closed. A
 * client that reads, however slowly, gets the whole answer.
 */
describe('a large answer its client does not read', function () {
  this.timeout(30_000);
  let gate: Tollgate;
  let server: Server;
  let port: number;
  async function start(maxPausedStreamMs: number): Promise<void> {
    gate = tollgate({ keys: [{ key: KEY, org: 'acme' }], organizations: { acme: { wallet: 10 } }, relay: { maxPausedStreamMs } }, { logger: { info() {}, error: (message, error) => console.error(message, error) } });
    server = createServer(gate);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    await gate.ready();
  }
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await gate.close();
  });

  it('closes each connection whose client read nothing of its 16 MiB answer for maxPausedStreamMs (300 ms)', async () => {
    await start(300);
    const sockets = await Promise.all(Array.from({ length: 8 }, () => askWithoutReading(port, hexOf(8 * 1_048_576))));
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    const stillOpen = await openConnections(server);
    for (const socket of sockets) socket.destroy();
    assert.equal(stillOpen, 0, `${stillOpen} of 8 unread connections still open after 4 s`);
  });

  it('sends the whole answer to a client that keeps reading, slowly (~1 MB/s, maxPausedStreamMs 3 s)', async () => {
    // TCP moves a slow reader's bytes in bursts (the receiver's window opens in large steps), so the bound is set
    // well above the gaps between them, as the default (30 s) is.
    await start(3_000);
    const socket = await askWithoutReading(port, hexOf(2 * 1_048_576));
    let received = 0;
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
      socket.pause();
      setTimeout(() => socket.resume(), 50);
    });
    socket.resume();
    // The head, then the 4 MiB hex string quoted in its JSON: more than 4 MiB in all, far past the socket buffers.
    while (received < 4 * 1_048_576 && !socket.destroyed) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(received > 4 * 1_048_576, `the connection closed after ${received} bytes`);
    socket.destroy();
  });
});
