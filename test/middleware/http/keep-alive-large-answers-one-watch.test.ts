import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { Client } from 'undici';
import { startGateway, type RunningGateway } from '../../support/gateway.js';

const KEY = 'tg-growth-unread-watch-key-0123456789abcdef';

/**
 * http/unread-answer.ts watches every answer that leaves bytes unsent when its handler returns. An application that
 * keeps one keep-alive connection to Tollgate (an HTTP client pool does) and asks for large SQL answers gets a new
 * watcher per answer, and each one leaves a 'close' listener on the shared socket for as long as the connection
 * lives: the listeners (and their closures) grow with every request, and Node prints
 * "MaxListenersExceededWarning: Possible EventEmitter memory leak detected" after the 11th.
 */
describe('large answers on one keep-alive connection (growth)', function () {
  this.timeout(60_000);
  let gateway: RunningGateway;
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);

  before(async () => {
    gateway = await startGateway({ keys: [{ key: KEY, org: 'acme' }], organizations: { acme: { wallet: 10 } } });
    await gateway.gate.ready();
    process.on('warning', onWarning);
  });
  after(async () => {
    process.off('warning', onWarning);
    await gateway.close();
  });

  it('keeps the connection\'s listeners bounded and prints no leak warning, however many large answers it carries', async () => {
    let serverSide: Socket | undefined;
    gateway.server.on('connection', (socket) => (serverSide = socket));
    const client = new Client(gateway.url, { pipelining: 1 });
    const closeListeners: number[] = [];
    try {
      for (let i = 0; i < 15; i++) {
        const answer = await client.request({
          method: 'POST',
          path: '/api/sql/query',
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          // 16 MB of hex: more than the socket buffers take at once, so some of it is still unsent when the handler returns.
          body: JSON.stringify({ query: 'SELECT hex(randomblob(8000000)) AS big' }),
        });
        // The client reads a moment later, as any client busy with the previous answer does.
        await new Promise((resolve) => setTimeout(resolve, 30));
        const text = await answer.body.text();
        assert.equal(answer.statusCode, 200);
        assert.equal(text.length > 16_000_000, true);
        closeListeners.push(serverSide!.listenerCount('close'));
      }
    } finally {
      await client.close();
    }
    const leaks = warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning');
    assert.deepEqual(leaks.map(String), [], 'the server printed a listener leak warning');
    assert.ok(closeListeners.at(-1)! <= closeListeners[0]! + 1, `'close' listeners on the one connection after each answer: ${closeListeners.join(' ')}`);
  });
});
