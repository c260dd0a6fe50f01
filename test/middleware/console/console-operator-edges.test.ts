import assert from 'node:assert/strict';
import { once } from 'node:events';
import { appendFileSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { ADMIN_KEY, BROKE_ADMIN_KEY, ConsoleClient, TEST_KEY, chat, startConsoleStack } from './console-fixture.js';

const CI_KEY = 'tg-acme-ci-bot-key-0123456789abcdef';

describe('a console form whose body stalls', () => {
  let stack: Awaited<ReturnType<typeof startConsoleStack>>;
  afterEach(async () => stack?.close());

  it('answers 408 request_timeout with connection: close past bodyTimeoutMs, and closes the connection (README "bodyTimeoutMs")', async function () {
    this.timeout(20_000);
    stack = await startConsoleStack({ bodyTimeoutMs: 1_000 });
    const client = new ConsoleClient(stack.url);
    await client.login(BROKE_ADMIN_KEY);
    const cookie = [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const socket = connect(Number(new URL(stack.url).port), '127.0.0.1');
    socket.on('error', () => {});
    await once(socket, 'connect');
    const started = Date.now();
    // 40 bytes declared, 9 sent: the rest never comes.
    socket.write(`POST /console/api/orgs/broke/top-up HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncookie: ${cookie}\r\nx-csrf-token: ${client.csrfToken}\r\ncontent-length: 40\r\n\r\n{"usd": 5`);
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    await Promise.race([once(socket, 'close'), new Promise((resolve) => setTimeout(resolve, 15_000))]);
    const closedAfter = Date.now() - started;
    socket.destroy();
    assert.match(answer, /^HTTP\/1\.1 408 /);
    assert.match(answer, /\r\nconnection: close\r\n/i);
    assert.match(answer, /"code":"request_timeout"/);
    assert.ok(closedAfter < 4_000, `the connection closed ${closedAfter} ms after the request (bodyTimeoutMs is 1000)`);
    assert.equal((await stack.gateway.gate.admin.usage('broke')).wallet, 0);
  });
});

describe('an internal error of the console', () => {
  let stack: Awaited<ReturnType<typeof startConsoleStack>>;
  afterEach(async () => stack?.close());

  it('is logged, naming its cause, as every other endpoint logs its internal errors', async () => {
    const errors: string[] = [];
    const logger = { info() {}, error: (message: string, error?: unknown) => void errors.push(`${message} ${error instanceof Error ? error.message : String(error ?? '')}`) };
    stack = await startConsoleStack({}, { logger });
    assert.equal(await chat(stack.url, TEST_KEY), 200);
    // A disk that misbehaved: a complete line of the ledger that is not JSON (the reader calls it damage).
    const ledgerDir = join(stack.dir, 'state.json.ledger');
    const [file] = readdirSync(ledgerDir).filter((name) => name.endsWith('.jsonl'));
    appendFileSync(join(ledgerDir, file!), '{"t":"settle","at":\u0000\u0000\u0000\n');
    const client = new ConsoleClient(stack.url);
    await client.login(ADMIN_KEY);
    const overview = await client.request('GET', '/api/orgs/acme');
    assert.equal(overview.status, 500);
    // The operator sees "Internal server error" in the console; the log must say what failed and where.
    assert.ok(errors.some((line) => line.includes(file!) && /not JSON|damaged/.test(line)), `logged: ${JSON.stringify(errors)}`);
  });
});

describe('revoking a configured key from the console', () => {
  let stack: Awaited<ReturnType<typeof startConsoleStack>>;
  afterEach(async () => stack?.close());

  it('revokes a key listed with a Revoke button whatever its configured id (any non-empty string in keys[].id)', async () => {
    stack = await startConsoleStack({
      keys: [
        { key: TEST_KEY, org: 'acme', id: 'acme-app' },
        { key: CI_KEY, org: 'acme', id: 'CI bot (nightly)' },
        { key: ADMIN_KEY, org: 'acme', id: 'acme-ops', scopes: ['admin'] },
      ],
      organizations: { acme: { wallet: 100 } },
    });
    assert.equal(await chat(stack.url, CI_KEY), 200);
    const client = new ConsoleClient(stack.url);
    await client.login(ADMIN_KEY);
    const overview = await client.request('GET', '/api/orgs/acme');
    const listed = overview.body.keys.find((key: { keyId: string }) => key.keyId === 'CI bot (nightly)');
    assert.equal(listed?.revoked, false);
    // What the page's Revoke button sends for that row.
    const revoked = await client.post('/api/orgs/acme/keys/revoke', { keyId: 'CI bot (nightly)' });
    assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
    assert.deepEqual(revoked.body, { keyId: 'CI bot (nightly)', revoked: true });
    assert.equal(await chat(stack.url, CI_KEY), 401);
    assert.equal(await chat(stack.url, TEST_KEY), 200);
  });
});

describe('the console open in two tabs of one browser', () => {
  let stack: Awaited<ReturnType<typeof startConsoleStack>>;
  afterEach(async () => stack?.close());

  it('logs in from the tab opened first, after a second tab loaded the page (e.g. the 402 recovery URL)', async () => {
    stack = await startConsoleStack();
    const browser = new ConsoleClient(stack.url);
    const metaToken = (html: string) => /<meta name="tollgate-login-token" content="([^"]+)">/.exec(html)![1]!;
    const firstTab = await browser.request('GET', '');
    const secondTab = await browser.request('GET', '/billing');
    assert.equal(secondTab.status, 200);
    // The first tab's login form sends the token of its own page, with the browser's (one) cookie jar.
    const login = await browser.request('POST', '/login', { headers: { authorization: `Bearer ${ADMIN_KEY}`, 'x-csrf-token': metaToken(firstTab.body) } });
    assert.equal(login.status, 200, JSON.stringify(login.body));
    assert.equal(login.body.org, 'acme');
    // And the second tab's form works as well.
    const again = await browser.request('POST', '/login', { headers: { authorization: `Bearer ${ADMIN_KEY}`, 'x-csrf-token': metaToken(secondTab.body) } });
    assert.equal(again.status, 200, JSON.stringify(again.body));
  });
});
