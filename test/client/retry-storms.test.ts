import assert from 'node:assert/strict';
import { PolicyUnavailableError, RateLimitedError, TollgateClient } from '@tollgate/client';
import { ScriptedServer } from './scripted-server.js';

const chatBody = { model: 'gpt', messages: [{ role: 'user' as const, content: 'hi' }] };
const ok = { status: 200, body: { id: 'x', object: 'chat.completion', model: 'gpt', choices: [] } };
const rateLimited = (retryAfter: string) => ({ status: 429, headers: { 'x-service-reason': 'rate_limited', 'retry-after': retryAfter }, body: { error: { code: 'rate_limited', message: 'slow down' } } });

/**
 * Contract §7.3 rule 1: retry "with exponential backoff and random jitter; when Retry-After is present, wait at
 * least that many seconds". A server under load (or a hostile one) decides how long every client sleeps.
 */
describe('@tollgate/client: Retry-After storms and absurd waits', () => {
  let server: ScriptedServer;
  beforeEach(async () => {
    server = await new ScriptedServer().start();
  });
  afterEach(() => server.close());

  it('spreads the retries of callers told the same Retry-After instead of sending them all in the same instant', async () => {
    const waits: number[] = [];
    for (const random of [0, 0.25, 0.5, 0.75, 0.99]) {
      server.respond(rateLimited('2'), ok);
      const client = new TollgateClient({ baseUrl: server.url, apiKey: 'k', sleep: async (ms) => void waits.push(ms), random: () => random });
      await client.chat(chatBody);
    }
    assert.ok(waits.every((ms) => ms >= 2000), `a retry came sooner than Retry-After: ${waits.join(', ')} ms`);
    assert.equal(new Set(waits).size, waits.length, `five callers retried at the same instant: ${waits.join(', ')} ms`);
  });

  for (const [name, value] of [
    ['10^6 seconds (11 days)', '1000000'],
    ['an HTTP date in the year 2100', 'Fri, 31 Dec 2100 23:59:59 GMT'],
  ] as const) {
    it(`raises RateLimitedError at once on a Retry-After of ${name} instead of sleeping through it`, async () => {
      server.respond(rateLimited(value), ok);
      const client = new TollgateClient({ baseUrl: server.url, apiKey: 'k' });
      const started = Date.now();
      const error = await client.chat(chatBody).catch((e: unknown) => e);
      assert.ok(error instanceof RateLimitedError, String(error));
      assert.ok(error.retryAfter! >= 999_000, `retryAfter = ${error.retryAfter}`);
      assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
      assert.equal(server.requests.length, 1);
    });
  }

  it('waits at least 1 s on a negative Retry-After', async () => {
    const waits: number[] = [];
    server.respond(rateLimited('-30'), ok);
    const client = new TollgateClient({ baseUrl: server.url, apiKey: 'k', sleep: async (ms) => void waits.push(ms), random: () => 0 });
    await client.chat(chatBody);
    assert.deepEqual(waits, [1000]);
  });

  it('stops a 503 storm once its waits would pass maxRetryWaitMs, and raises the last error', async () => {
    const waits: number[] = [];
    const storm = { status: 503, headers: { 'x-service-reason': 'policy_unavailable', 'retry-after': '30' }, body: { error: { code: 'policy_unavailable', message: 'x' } } };
    server.respond(storm, storm, storm, storm, storm, ok);
    const client = new TollgateClient({ baseUrl: server.url, apiKey: 'k', maxRetries: 4, maxRetryWaitMs: 75_000, sleep: async (ms) => void waits.push(ms), random: () => 0.5 });
    const error = await client.chat(chatBody).catch((e: unknown) => e);
    assert.ok(error instanceof PolicyUnavailableError, String(error));
    assert.equal(waits.length, 2, `waited ${waits.join(', ')} ms`);
    assert.ok(waits.reduce((sum, ms) => sum + ms, 0) <= 75_000);
    assert.equal(server.requests.length, 3);
  });

  it('refuses a maxRetryWaitMs no timer can hold', () => {
    assert.throws(() => new TollgateClient({ baseUrl: server.url, maxRetryWaitMs: 2 ** 31 }), /maxRetryWaitMs/);
  });
});
