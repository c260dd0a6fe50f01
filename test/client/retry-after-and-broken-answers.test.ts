import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OutcomeUnknownError, RateLimitedError, TollgateClient, TollgateError, UpstreamError, PolicyUnavailableError } from '@tollgate/client';
import { ScriptedServer } from './scripted-server.js';

const chatBody = { model: 'gpt', messages: [{ role: 'user' as const, content: 'hi' }] };
const ok = { status: 200, body: { id: 'x', object: 'chat.completion', model: 'gpt', choices: [] } };

describe('@tollgate/client: Retry-After on every retried status, and answers that break off', () => {
  let server: ScriptedServer;
  let sleeps: number[];
  let client: TollgateClient;
  beforeEach(async () => {
    server = await new ScriptedServer().start();
    sleeps = [];
    client = new TollgateClient({ baseUrl: server.url, apiKey: 'tg-client-key', sleep: async (ms) => void sleeps.push(ms), random: () => 0.5, backoff: { baseMs: 100, maxMs: 10_000 } });
  });
  afterEach(() => server.close());

  it('waits at least Retry-After on a 503 (contract §7.3 rule 1: 5xx too, not only 429)', async () => {
    server.respond({ status: 503, headers: { 'x-service-reason': 'policy_unavailable', 'retry-after': '7' }, body: { error: { code: 'policy_unavailable', message: 'x' } } }, ok);
    await client.chat(chatBody);
    assert.equal(server.requests.length, 2);
    assert.ok(sleeps[0]! >= 7000, `slept ${sleeps[0]} ms before retrying a 503 with Retry-After: 7`);
  });

  it('waits at least Retry-After on a relayed 502/500 with Retry-After', async () => {
    server.respond({ status: 502, headers: { 'retry-after': '4' }, body: { error: { type: 'api_error', message: 'x' } } }, ok);
    await client.chat(chatBody);
    assert.ok(sleeps[0]! >= 4000, `slept ${sleeps[0]} ms`);
  });

  it('never retries sooner than a Retry-After too large for a timer (default sleep)', async () => {
    const real = new TollgateClient({ baseUrl: server.url, apiKey: 'tg-client-key', random: () => 0 });
    // 30 days: past setTimeout's 2^31-1 ms limit, which Node turns into 1 ms.
    server.respond({ status: 429, headers: { 'x-service-reason': 'rate_limited', 'retry-after': String(30 * 86400) }, body: { error: { code: 'rate_limited' } } }, ok, ok);
    const settled = real.chat(chatBody).then(
      () => 'resolved',
      (e: unknown) => e,
    );
    const outcome = await Promise.race([settled, new Promise((resolve) => setTimeout(() => resolve('pending'), 500))]);
    // Either it is still waiting, or it gave up with the RateLimitedError: never a second request within 0.5 s.
    assert.equal(server.requests.length, 1, `sent ${server.requests.length} requests within 0.5 s (outcome: ${String(outcome)})`);
    if (outcome !== 'pending') assert.ok(outcome instanceof RateLimitedError, String(outcome));
  });

  it('a connection lost after the 200 head, mid JSON body, raises OutcomeUnknownError (a TollgateError), not a raw socket error', async () => {
    const raw: Server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"id":"x","object":"chat.');
        setTimeout(() => res.socket?.destroy(), 20);
      });
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    try {
      const c = new TollgateClient({ baseUrl: `http://127.0.0.1:${(raw.address() as AddressInfo).port}`, apiKey: 'k', sleep: async () => undefined });
      const error = await c.chat(chatBody).catch((e: unknown) => e);
      assert.ok(error instanceof TollgateError, `${(error as Error).name}: ${(error as Error).message}`);
      assert.ok(error instanceof OutcomeUnknownError, `${(error as Error).name}`);
    } finally {
      raw.closeAllConnections();
      await new Promise((resolve) => raw.close(resolve));
    }
  });

  it('a 200 whose body is not JSON (a proxy page) raises a TollgateError, not a SyntaxError', async () => {
    server.respond({ status: 200, headers: { 'content-type': 'application/json' }, body: '<html>proxy</html>' });
    const error = await client.chat(chatBody).catch((e: unknown) => e);
    assert.ok(error instanceof TollgateError, `${(error as Error).name}: ${(error as Error).message}`);
  });
});
