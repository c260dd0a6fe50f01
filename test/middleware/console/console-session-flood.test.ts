import assert from 'node:assert/strict';
import { ADMIN_KEY, BROKE_ADMIN_KEY, ConsoleClient, startConsoleStack } from './console-fixture.js';

/**
 * One admin key's logins cannot log anyone else out: sessions are bounded per key (README "Console",
 * "Sessions") before the installation-wide `maxSessions` is reached, so a flood of logins with one valid
 * admin key ends only that key's own oldest sessions.
 */
describe('a flood of console logins with one admin key', () => {
  let stack: Awaited<ReturnType<typeof startConsoleStack>>;
  afterEach(async () => stack?.close());

  it('leaves another organization\'s operator logged in, even past maxSessions logins', async () => {
    stack = await startConsoleStack({ console: { maxSessions: 50 } });
    const operator = new ConsoleClient(stack.url);
    assert.equal((await operator.login(ADMIN_KEY)).status, 200);
    const flooder = new ConsoleClient(stack.url);
    for (let i = 0; i < 60; i++) assert.equal((await flooder.login(BROKE_ADMIN_KEY)).status, 200);
    const session = await operator.request('GET', '/api/session');
    assert.equal(session.status, 200);
    assert.equal(session.body.org, 'acme');
    // Still able to change things: its CSRF token is that of a live session.
    assert.equal((await operator.post('/api/orgs/acme/payment-method', { enabled: true })).status, 200);
    // The flooder's newest session works; its oldest ones were ended.
    assert.equal((await flooder.request('GET', '/api/session')).status, 200);
  });

  it('ends that key\'s own oldest session once it holds 10, and no other', async () => {
    stack = await startConsoleStack();
    const browsers = Array.from({ length: 11 }, () => new ConsoleClient(stack.url));
    for (const browser of browsers) assert.equal((await browser.login(ADMIN_KEY)).status, 200);
    const statuses = await Promise.all(browsers.map(async (browser) => (await browser.request('GET', '/api/session')).status));
    assert.deepEqual(statuses, [401, ...Array(10).fill(200)]);
  });
});
