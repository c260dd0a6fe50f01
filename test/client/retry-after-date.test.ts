import assert from 'node:assert/strict';
import { RateLimitedError, TollgateClient } from '@tollgate/client';
import { ScriptedServer } from '../client/scripted-server.js';

const chatBody = { model: 'gpt', messages: [{ role: 'user' as const, content: 'hi' }] };
const ok = { status: 200, body: { id: 'x', object: 'chat.completion', model: 'gpt', choices: [] } };

/**
 * README "@tollgate/client": retries "never sooner than Retry-After (on every retried status, at least 1 s)".
 * Retry-After may be an HTTP-date (RFC 9110 §10.2.3), as proxies, load balancers and CDNs in front of
 * Tollgate send it on their 503/429. The client reads only delta-seconds and treats a date as "1 s".
 */
describe('@tollgate/client: Retry-After given as an HTTP-date', () => {
  let server: ScriptedServer;
  let sleeps: number[];
  let client: TollgateClient;
  beforeEach(async () => {
    server = await new ScriptedServer().start();
    sleeps = [];
    client = new TollgateClient({ baseUrl: server.url, apiKey: 'k', sleep: async (ms) => void sleeps.push(ms), random: () => 0, backoff: { baseMs: 100, maxMs: 10_000 } });
  });
  afterEach(() => server.close());

  const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toUTCString();

  it('waits until the date of a Retry-After on a 503 from a proxy before retrying', async () => {
    server.respond({ status: 503, headers: { 'retry-after': inSeconds(120) }, body: '<html>Service Unavailable</html>' }, ok);
    await client.chat(chatBody);
    assert.equal(server.requests.length, 2);
    assert.ok(sleeps[0]! >= 100_000, `retried after ${sleeps[0]} ms though Retry-After said 120 s from now`);
  });

  it('waits until the date of a Retry-After on a 429, and RateLimitedError.retryAfter gives its seconds', async () => {
    server.respond(...Array.from({ length: 5 }, () => ({ status: 429, headers: { 'retry-after': inSeconds(60) }, body: { error: { code: 'rate_limited', message: 'slow down' } } })));
    const error = await client.chat(chatBody).catch((e: unknown) => e);
    assert.ok(error instanceof RateLimitedError);
    assert.ok(sleeps.every((ms) => ms >= 50_000), `slept ${sleeps.join(', ')} ms though Retry-After said 60 s from now`);
    assert.ok(error.retryAfter !== undefined && error.retryAfter >= 50 && error.retryAfter <= 60, `retryAfter = ${error.retryAfter}`);
  });
});
