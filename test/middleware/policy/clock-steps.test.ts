import assert from 'node:assert/strict';
import type { ConfigInput } from '@tollgate/middleware';
import { TestClock, chat, denialHeaders, startPolicyStack } from './policy-fixture.js';

const HOUR = 3_600_000;

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
});
