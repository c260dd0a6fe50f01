import { connect, type Socket } from 'node:net';
import { once } from 'node:events';

/**
 * A client that sends a model request over a raw socket and never reads the answer: its socket is paused
 * before it connects, so the kernel's receive buffer fills and the server meets backpressure. Destroy the
 * socket to make it leave.
 *
 * @example
 * const socket = await openStalledRequest(gateway.url, '/v1/chat/completions', key, { model: 'gpt', stream: true, messages });
 * socket.destroy();
 */
export async function openStalledRequest(url: string, path: string, key: string, body: unknown): Promise<Socket> {
  const payload = JSON.stringify(body);
  const socket = connect(Number(new URL(url).port), '127.0.0.1');
  socket.on('error', () => {});
  socket.pause();
  await once(socket, 'connect');
  socket.write(
    `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${key}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`,
  );
  return socket;
}

/** Polls `condition` every 20 ms until it holds; fails with `what` after `timeoutMs`. */
export async function waitUntil(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Resolves once `read()` gave the same value `times` polls in a row (20 ms apart): the writer is blocked. */
export async function waitUntilStalled(read: () => number, times = 5, timeoutMs = 10_000): Promise<number> {
  let last = -1;
  let same = 0;
  await waitUntil('the writer stalled', () => {
    const now = read();
    same = now === last && now > 0 ? same + 1 : 0;
    last = now;
    return same >= times;
  }, timeoutMs);
  return last;
}
