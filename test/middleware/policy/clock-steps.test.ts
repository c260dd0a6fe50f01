import assert from 'node:assert/strict';
import type { ConfigInput } from '@tollgate/middleware';
import { RedisServer } from '../../support/redis-server.js';
import { TestClock, chat, denialHeaders, startPolicyStack } from './policy-fixture.js';

async function chatWithKey(url: string, key: string) {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: 'gpt', max_tokens: 4, messages: [{ role: 'user', content: 'one two three' }] }),
  });
  return { status: response.status, body: (await response.json()) as { error: { code: string; message: string } } };
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * The wall clock of a long-running gateway steps (an NTP correction, a VM paused or restored from a snapshot):
 * limits, allowances and budgets must come out of a step as they would have without it — never locked for the
 * length of the step, never renewing a year late.
 */
describe('clock steps', () => {
  let stack: Awaited<ReturnType<typeof startPolicyStack>>;
  let clock: TestClock;
  afterEach(() => stack.close());

  const start = async (organizations: Parameters<typeof startPolicyStack>[0], store?: ConfigInput['store']) => {
    clock = new TestClock();
    stack = await startPolicyStack(organizations, { clock, ...(store ? { store } : {}) });
  };

  describe('memory store windows', () => {
    it('a clock stepped back an hour keeps counting the last minute, and frees it a minute later, not an hour later', async () => {
      await start({ acme: { wallet: 10, limits: { rpm: 2 } } });
      assert.equal((await chat(stack.gateway.url, 'acme')).status, 200);
      assert.equal((await chat(stack.gateway.url, 'acme')).status, 200);
      clock.advance(-HOUR);
      const limited = await chat(stack.gateway.url, 'acme');
      assert.equal(limited.status, 429, 'the two requests of the last minute still count');
      assert.equal(denialHeaders(limited.headers).retryAfter, '61');
      clock.advance(61_000);
      assert.equal((await chat(stack.gateway.url, 'acme')).status, 200, 'a minute after the step, the window has room again');
    });
  });

  let redis: RedisServer;
  before(async () => {
    redis = await RedisServer.start();
  });
  after(() => redis.close());
  const stores: { name: string; store: () => ConfigInput['store'] }[] = [
    { name: 'memory store', store: () => ({ kind: 'memory' }) },
    { name: 'Redis store', store: () => ({ kind: 'redis', url: redis.url, prefix: `s${Math.random().toString(36).slice(2)}:`, ledger: false }) },
  ];

  for (const { name, store } of stores)
  describe(`periods after a clock that ran a year ahead was corrected (${name})`, () => {
    const YEAR_AHEAD = Date.parse('2027-11-22T12:00:00Z');

    it('the included allowance renews at the end of the real month, and says so in X-Service-Reset-At', async () => {
      await start({ acme: { wallet: 0, included: { tokens: 5, period: 'month' } } }, store());
      clock.time = YEAR_AHEAD; // a VM booted with its clock a year fast
      assert.equal((await chat(stack.gateway.url, 'acme', { model: 'gpt-included' })).status, 200);
      clock.time = Date.parse('2026-11-22T12:05:00Z'); // NTP corrects it
      const exhausted = await chat(stack.gateway.url, 'acme', { model: 'gpt-included' });
      assert.equal(exhausted.status, 429);
      assert.equal(exhausted.body.error.code, 'included_allowance_exhausted');
      assert.equal(denialHeaders(exhausted.headers).resetAt, '2026-12-01T00:00:00.000Z');
      assert.equal((await stack.gateway.gate.admin.usage('acme')).resetAt, '2026-12-01T00:00:00.000Z');
      clock.time = Date.parse('2026-12-01T00:00:00Z');
      assert.equal((await chat(stack.gateway.url, 'acme', { model: 'gpt-included' })).status, 200, 'refilled on the 1st of the real next month');
    });

    it("a key's daily budget renews the next real day, and its 402 names that day", async () => {
      const capped = 'tg-key-capped-0001-0123456789abcdef';
      clock = new TestClock();
      stack = await startPolicyStack({ acme: { wallet: 10 } }, { clock, store: store(), keys: [{ key: capped, org: 'acme', id: 'capped', budget: { usd: 0.0001, period: 'day' } }] });
      // Each call reserves 63 micro-dollars (a 9-token prompt estimate + 4 output tokens) and costs 48.
      const call = () => chatWithKey(stack.gateway.url, capped);
      clock.time = YEAR_AHEAD;
      assert.equal((await call()).status, 200);
      clock.time = Date.parse('2026-11-22T12:05:00Z');
      const spent = await call();
      assert.equal(spent.status, 402);
      assert.equal(spent.body.error.code, 'wallet_empty');
      assert.match(spent.body.error.message, /renews at 2026-11-23T00:00:00.000Z/);
      assert.equal((await stack.gateway.gate.admin.usage('acme')).keys?.capped?.budgetResetAt, '2026-11-23T00:00:00.000Z');
      clock.time = Date.parse('2026-11-23T00:00:00Z');
      assert.equal((await call()).status, 200, 'renewed the next real day');
    });
  });
});
