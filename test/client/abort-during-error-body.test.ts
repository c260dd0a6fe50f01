import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TollgateClient } from '@tollgate/client';

/**
 * An AbortSignal that fires while the client reads a retryable error's body (a 503 whose body is slow to come,
 * as from an overloaded proxy) must cancel the call at once. The body read fails with the abort, the error is
 * classified as retryable, and the backoff sleep is entered with an already-aborted signal: the default sleep
 * only listens for a future 'abort' event, so it waits out the whole Retry-After (and its timer keeps the process alive).
 */
describe('@tollgate/client: an abort while a retryable error answer is being read', () => {
  let server: Server;
  let url: string;
  let requests = 0;
  before(async () => {
    server = createServer((req, res) => {
      requests++;
      req.resume();
      req.on('end', () => {
        res.writeHead(503, { 'content-type': 'application/json', 'content-length': '200', 'retry-after': '15' });
        res.write('{"error":{"code":"policy_unavailable",'); // the rest never comes
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('rejects with the abort within a moment instead of sleeping out Retry-After (15 s)', async () => {
    const tg = new TollgateClient({ baseUrl: url, apiKey: 'k' });
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(new Error('cancelled by caller')), 200);
    const outcome = await Promise.race([
      tg.chat({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }] }, { signal: controller.signal }).then(
        () => 'resolved',
        (e: unknown) => e,
      ),
      new Promise((resolve) => setTimeout(() => resolve('still waiting'), 3000)),
    ]);
    assert.ok(outcome instanceof Error, `after the abort at 200 ms the call was ${String(outcome)} at ${Date.now() - started} ms`);
    assert.match(outcome.message, /cancelled by caller/);
    assert.equal(requests, 1);
  });
});
