import assert from 'node:assert/strict';
import { ADMIN_KEY, BROKE_ADMIN_KEY, BROKE_KEY, ConsoleClient, TEST_KEY, chat, startConsoleStack } from './console-fixture.js';

describe('the operator console over HTTP', () => {
  let stack: Awaited<ReturnType<typeof startConsoleStack>>;
  afterEach(async () => stack?.close());

  it('is not served unless configured: the path falls through to the host', async () => {
    stack = await startConsoleStack({ console: undefined });
    const response = await fetch(`${stack.url}/console`);
    assert.equal(response.status, 404);
    assert.deepEqual(await response.json(), { detail: 'Not Found' });
  });

  it('serves its page with its own assets only, a login token cookie and a strict content security policy', async () => {
    stack = await startConsoleStack();
    const client = new ConsoleClient(stack.url);
    const page = await client.request('GET', '/billing');
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type')!, /^text\/html/);
    assert.match(page.headers.get('content-security-policy')!, /script-src 'self'/);
    assert.doesNotMatch(page.body, /https?:\/\//);
    assert.match(page.body, /<script type="module" src="\/console\/assets\/console\.js">/);
    const cookie = page.headers.getSetCookie()[0]!;
    assert.match(cookie, /^tollgate_console_login=[\w-]{43}; Path=\/console; Max-Age=3600; HttpOnly; SameSite=Strict$/);
    const script = await fetch(`${stack.url}/console/assets/console.js`);
    assert.equal(script.status, 200);
    assert.match(script.headers.get('content-type')!, /^text\/javascript/);
    assert.ok((await script.text()).length > 1000);
  });

  it('logs an admin key in with an HttpOnly, SameSite=Strict session cookie of bounded lifetime', async () => {
    stack = await startConsoleStack();
    const client = new ConsoleClient(stack.url);
    const login = await client.login(ADMIN_KEY);
    assert.equal(login.status, 200);
    assert.equal(login.body.org, 'acme');
    assert.equal(login.body.keyId, 'acme-ops');
    const cookie = login.headers.getSetCookie()[0]!;
    assert.match(cookie, /^tollgate_console=[\w-]{43}; Path=\/console; Max-Age=3600; HttpOnly; SameSite=Strict$/);
    assert.doesNotMatch(JSON.stringify(login.body), new RegExp(ADMIN_KEY));
    const session = await client.request('GET', '/api/session');
    assert.equal(session.status, 200);
    assert.equal(session.body.csrfToken, login.body.csrfToken);
  });

  it('marks the session cookie Secure when the browser came over https (a proxy in front says so)', async () => {
    stack = await startConsoleStack();
    const client = new ConsoleClient(stack.url);
    await client.request('GET', '');
    const login = await client.request('POST', '/login', { headers: { authorization: `Bearer ${ADMIN_KEY}`, 'x-csrf-token': client.cookies.get('tollgate_console_login')!, 'x-forwarded-proto': 'https' } });
    assert.match(login.headers.getSetCookie()[0]!, /; Secure$/);
  });

  it('refuses a key without the admin scope, an unknown key and a login without its form token', async () => {
    stack = await startConsoleStack();
    const client = new ConsoleClient(stack.url);
    const modelKey = await client.login(TEST_KEY);
    assert.equal(modelKey.status, 401);
    assert.match(modelKey.body.detail ?? modelKey.body.error?.message, /lacks the "admin" scope/);
    assert.equal((await client.login('tg-no-such-key-000-0123456789abcdef')).status, 401);
    const noToken = await client.request('POST', '/login', { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    assert.equal(noToken.status, 403);
    assert.equal(noToken.body.error.code, 'forbidden');
    assert.equal(client.cookies.has('tollgate_console'), false);
    assert.equal((await client.request('GET', '/api/session')).status, 401);
  });

  it('never lets an admin key reach the model endpoints by itself', async () => {
    stack = await startConsoleStack();
    assert.equal(await chat(stack.url, ADMIN_KEY), 401);
  });

  it('refuses every change without the session CSRF token, or with a wrong one, and changes nothing', async () => {
    stack = await startConsoleStack();
    const client = new ConsoleClient(stack.url);
    await client.login(BROKE_ADMIN_KEY);
    const missing = await client.post('/api/orgs/broke/top-up', { usd: 5 }, null);
    assert.equal(missing.status, 403);
    assert.match(missing.body.error.message, /CSRF token/);
    const wrong = await client.post('/api/orgs/broke/top-up', { usd: 5 }, 'x'.repeat(43));
    assert.equal(wrong.status, 403);
    assert.equal((await client.post('/api/orgs/broke/keys', {}, null)).status, 403);
    assert.equal((await client.post('/logout', {}, null)).status, 403);
    const usage = await stack.gateway.gate.admin.usage('broke');
    assert.equal(usage.wallet, 0);
    assert.equal(await chat(stack.url, BROKE_KEY), 402);
  });

  it('refuses another organization to an admin key of one organization, reads and changes alike', async () => {
    stack = await startConsoleStack();
    const client = new ConsoleClient(stack.url);
    await client.login(ADMIN_KEY);
    const read = await client.request('GET', '/api/orgs/broke');
    assert.equal(read.status, 403);
    assert.match(read.body.error.message, /administers "acme", not "broke"/);
    assert.equal((await client.post('/api/orgs/broke/top-up', { usd: 5 })).status, 403);
    assert.equal((await client.post('/api/orgs/acme/keys/revoke', { keyId: 'broke-app' })).status, 403);
    assert.equal((await stack.gateway.gate.admin.usage('broke')).wallet, 0);
    assert.equal(await chat(stack.url, BROKE_KEY), 402);
  });

  it('answers bad input with a clear 400 and changes nothing', async () => {
    stack = await startConsoleStack();
    const client = new ConsoleClient(stack.url);
    await client.login(BROKE_ADMIN_KEY);
    const cases: [string, unknown, RegExp][] = [
      ['/api/orgs/broke/top-up', { usd: -5 }, /positive amount of USD/],
      ['/api/orgs/broke/top-up', { usd: '5' }, /positive amount of USD/],
      ['/api/orgs/broke/top-up', { usd: 1e308 }, /positive amount of USD/],
      ['/api/orgs/broke/top-up', [5], /JSON object/],
      ['/api/orgs/broke/payment-method', { enabled: 'yes' }, /true or false/],
      ['/api/orgs/broke/keys', { scopes: ['admin'] }, /non-empty list of "models", "sql" and "sql:read"/],
      ['/api/orgs/broke/keys', { scopes: [] }, /non-empty list/],
      ['/api/orgs/broke/keys/revoke', { keyId: 'no-such-key' }, /No key has the id/],
      ['/api/orgs/broke/keys/revoke', { keyId: 42 }, /keyId is the id/],
    ];
    for (const [path, body, message] of cases) {
      const answer = await client.post(path, body);
      assert.equal(answer.status, 400, `${path} ${JSON.stringify(body)}`);
      assert.match(answer.body.error.message, message);
    }
    const notJson = await client.post('/api/orgs/broke/top-up', '{"usd": 5');
    assert.equal(notJson.status, 422);
    const badPage = await client.request('GET', '/api/orgs/broke/ledger?page=-1');
    assert.equal(badPage.status, 400);
    const usage = await stack.gateway.gate.admin.usage('broke');
    assert.equal(usage.wallet, 0);
    assert.equal(usage.paymentMethod, false);
    const overview = await client.request('GET', '/api/orgs/broke');
    assert.deepEqual(overview.body.keys.map((key: { keyId: string }) => key.keyId).sort(), ['broke-app', 'broke-ops']);
  });

  it('tops up through the admin operations: the request refused with 402 then succeeds', async () => {
    stack = await startConsoleStack();
    const client = new ConsoleClient(stack.url);
    await client.login(BROKE_ADMIN_KEY);
    assert.equal(await chat(stack.url, BROKE_KEY), 402);
    const topUp = await client.post('/api/orgs/broke/top-up', { usd: 5 });
    assert.equal(topUp.status, 200);
    assert.deepEqual(topUp.body, { wallet: 5 });
    assert.equal(await chat(stack.url, BROKE_KEY), 200);
    const payment = await client.post('/api/orgs/broke/payment-method', { enabled: true });
    assert.equal(payment.status, 200);
    assert.equal((await stack.gateway.gate.admin.usage('broke')).paymentMethod, true);
  });

  it('creates a key shown once, which works at once, and revokes it: it then gets 401', async () => {
    stack = await startConsoleStack();
    const client = new ConsoleClient(stack.url);
    await client.login(ADMIN_KEY);
    const created = await client.post('/api/orgs/acme/keys', { scopes: ['models'] });
    assert.equal(created.status, 200);
    assert.match(created.body.key, /^tg-/);
    assert.equal(await chat(stack.url, created.body.key), 200);
    const overview = await client.request('GET', '/api/orgs/acme');
    assert.doesNotMatch(JSON.stringify(overview.body), new RegExp(created.body.key));
    assert.ok(overview.body.keys.some((key: { keyId: string; revoked: boolean }) => key.keyId === created.body.keyId && !key.revoked));
    const revoked = await client.post('/api/orgs/acme/keys/revoke', { keyId: created.body.keyId });
    assert.deepEqual(revoked.body, { keyId: created.body.keyId, revoked: true });
    assert.equal(await chat(stack.url, created.body.key), 401);
  });

  it('shows spend and tokens by day, alias and key, and the recent ledger, from the ledger files', async () => {
    stack = await startConsoleStack();
    for (let i = 0; i < 3; i++) assert.equal(await chat(stack.url, TEST_KEY), 200);
    const usage = await stack.gateway.gate.admin.usage('acme');
    const client = new ConsoleClient(stack.url);
    await client.login(ADMIN_KEY);
    const { body } = await client.request('GET', '/api/orgs/acme');
    assert.equal(body.usage.wallet, usage.wallet);
    assert.equal(body.activity.days.length, 30);
    const today = body.activity.days.at(-1);
    assert.equal(today.label, new Date().toISOString().slice(0, 10));
    assert.equal(today.requests, 3);
    assert.equal(today.costUsd, usage.costUsd);
    assert.equal(today.inputTokens + today.outputTokens, usage.inputTokens + usage.outputTokens);
    assert.deepEqual(body.activity.byAlias.map((bar: { label: string; requests: number }) => [bar.label, bar.requests]), [['gpt', 3]]);
    assert.deepEqual(body.activity.byKey.map((bar: { label: string; requests: number }) => [bar.label, bar.requests]), [['acme-app', 3]]);
    const ledger = await client.request('GET', '/api/orgs/acme/ledger?page=0');
    assert.equal(ledger.body.rows.length, 3);
    assert.equal(ledger.body.hasOlder, false);
    assert.deepEqual(new Set(ledger.body.rows.map((row: { alias: string; keyId: string }) => `${row.alias}/${row.keyId}`)), new Set(['gpt/acme-app']));
  });

  it('pages the ledger newest first, 25 a page', async () => {
    stack = await startConsoleStack();
    for (let i = 0; i < 27; i++) assert.equal(await chat(stack.url, TEST_KEY), 200);
    const client = new ConsoleClient(stack.url);
    await client.login(ADMIN_KEY);
    const first = await client.request('GET', '/api/orgs/acme/ledger');
    const second = await client.request('GET', '/api/orgs/acme/ledger?page=1');
    assert.equal(first.body.rows.length, 25);
    assert.equal(first.body.hasOlder, true);
    assert.equal(second.body.rows.length, 2);
    assert.equal(second.body.hasOlder, false);
    const times = [...first.body.rows, ...second.body.rows].map((row: { at: string }) => row.at);
    assert.deepEqual(times, [...times].sort().reverse());
  });

  it('ends the session at logout, and when its admin key is revoked', async () => {
    stack = await startConsoleStack();
    const client = new ConsoleClient(stack.url);
    await client.login(ADMIN_KEY);
    const sessionCookie = client.cookies.get('tollgate_console')!;
    const logout = await client.post('/logout', {});
    assert.equal(logout.status, 200);
    assert.match(logout.headers.getSetCookie()[0]!, /^tollgate_console=; Path=\/console; Max-Age=0/);
    const replayed = await fetch(`${stack.url}/console/api/session`, { headers: { cookie: `tollgate_console=${sessionCookie}` } });
    assert.equal(replayed.status, 401);

    await client.login(ADMIN_KEY);
    await stack.gateway.gate.admin.revokeKey('acme-ops');
    assert.equal((await client.request('GET', '/api/session')).status, 401);
  });
});

describe('console sessions', () => {
  let stack: Awaited<ReturnType<typeof startConsoleStack>>;
  afterEach(async () => stack?.close());

  it('expire after sessionMinutes on the injected clock', async () => {
    let now = Date.parse('2026-11-23T10:00:00Z');
    stack = await startConsoleStack({ console: { sessionMinutes: 5 } }, { clock: { now: () => now } });
    const client = new ConsoleClient(stack.url);
    const login = await client.login(ADMIN_KEY);
    assert.match(login.headers.getSetCookie()[0]!, /Max-Age=300;/);
    now += 299_000;
    assert.equal((await client.request('GET', '/api/session')).status, 200);
    now += 1_000;
    assert.equal((await client.request('GET', '/api/session')).status, 401);
  });

  it('end sessionMinutes after the clock steps back a day, not a day later', async () => {
    let now = Date.parse('2026-11-23T10:00:00Z');
    stack = await startConsoleStack({ console: { sessionMinutes: 5 } }, { clock: { now: () => now } });
    const client = new ConsoleClient(stack.url);
    await client.login(ADMIN_KEY);
    now -= 24 * 3_600_000; // an NTP correction of a clock a day fast
    assert.equal((await client.request('GET', '/api/session')).status, 200);
    now += 300_000;
    assert.equal((await client.request('GET', '/api/session')).status, 401, 'five minutes after the step the session is over');
  });

  it('are held up to maxSessions: a new login drops the oldest session', async () => {
    stack = await startConsoleStack({ console: { maxSessions: 2 } });
    const clients = [new ConsoleClient(stack.url), new ConsoleClient(stack.url), new ConsoleClient(stack.url)];
    for (const client of clients) assert.equal((await client.login(ADMIN_KEY)).status, 200);
    const statuses = await Promise.all(clients.map(async (client) => (await client.request('GET', '/api/session')).status));
    assert.deepEqual(statuses, [401, 200, 200]);
  });
});
