import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import { tollgate, type Tollgate } from '@tollgate/middleware';
import { koa } from '@tollgate/middleware/koa';

const ADMIN_KEY = 'tg-koa-admin-key-01-0123456789abcdef';
const PREFIX_ADMIN_KEY = 'tg-koa-admin-key-02-0123456789abcdef';

describe('the console behind Koa and @koa/bodyparser (README: a body @koa/bodyparser parsed is used as is)', () => {
  let gate: Tollgate;
  let server: Server;
  afterEach(async () => {
    server?.closeAllConnections();
    server?.close();
    await gate?.close();
  });

  it('tops up and records a payment method from the console, as without a parser in front', async () => {
    gate = tollgate({ keys: [{ key: ADMIN_KEY, org: 'acme', id: 'acme-ops', scopes: ['admin'] }], organizations: { acme: { wallet: 1 } }, console: {} }, { logger: { info() {}, error() {} } });
    const app = new Koa();
    app.use(bodyParser());
    app.use(koa(gate));
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const page = await fetch(`${url}/console`);
    await page.text();
    const token = /^tollgate_console_login=([^;]+)/.exec(page.headers.getSetCookie()[0]!)![1]!;
    const login = await fetch(`${url}/console/login`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_KEY}`, 'x-csrf-token': token, cookie: `tollgate_console_login=${token}` } });
    assert.equal(login.status, 200);
    const { csrfToken } = (await login.json()) as { csrfToken: string };
    const session = /^tollgate_console=([^;]+)/.exec(login.headers.getSetCookie()[0]!)![1]!;
    const headers = { 'content-type': 'application/json', 'x-csrf-token': csrfToken, cookie: `tollgate_console=${session}` };

    const topUp = await fetch(`${url}/console/api/orgs/acme/top-up`, { method: 'POST', headers, body: JSON.stringify({ usd: 5 }) });
    const topUpBody = await topUp.json();
    assert.equal(topUp.status, 200, JSON.stringify(topUpBody));
    assert.deepEqual(topUpBody, { wallet: 6 });
    const payment = await fetch(`${url}/console/api/orgs/acme/payment-method`, { method: 'POST', headers, body: JSON.stringify({ enabled: true }) });
    assert.equal(payment.status, 200, JSON.stringify(await payment.json()));
    const usage = await gate.admin.usage('acme');
    assert.equal(usage.wallet, 6);
    assert.equal(usage.paymentMethod, true);
  });
});

describe('the console mounted under a prefix in Koa (as examples/koa mounts Tollgate under /ai)', () => {
  let gate: Tollgate;
  let server: Server;
  afterEach(async () => {
    server?.closeAllConnections();
    server?.close();
    await gate?.close();
  });

  it('names its assets and scopes its cookies under the prefix the browser sees', async () => {
    gate = tollgate({ keys: [{ key: PREFIX_ADMIN_KEY, org: 'acme', id: 'acme-ops', scopes: ['admin'] }], organizations: { acme: { wallet: 1 } }, console: {} }, { logger: { info() {}, error() {} } });
    const tollgateKoa = koa(gate);
    const app = new Koa();
    // The prefix stripped for Tollgate, as koa-mount (and examples/koa/server.js) do.
    app.use(async (ctx, next) => {
      if (!ctx.path.startsWith('/ai/')) return next();
      const original = ctx.url;
      ctx.url = ctx.url.slice('/ai'.length);
      try {
        await tollgateKoa(ctx, next);
      } finally {
        ctx.url = original;
      }
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const page = await fetch(`${url}/ai/console`);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /<meta name="tollgate-console-base" content="\/ai\/console">/);
    assert.match(html, /src="\/ai\/console\/assets\/console\.js"/);
    const loginCookie = page.headers.getSetCookie()[0]!;
    assert.match(loginCookie, /; Path=\/ai\/console;/);
    // The browser then sends the login token cookie to /ai/console/login, and gets its session cookie there.
    const token = /^tollgate_console_login=([^;]+)/.exec(loginCookie)![1]!;
    const login = await fetch(`${url}/ai/console/login`, { method: 'POST', headers: { authorization: `Bearer ${PREFIX_ADMIN_KEY}`, 'x-csrf-token': token, cookie: `tollgate_console_login=${token}` } });
    assert.equal(login.status, 200);
    assert.match(login.headers.getSetCookie()[0]!, /^tollgate_console=[\w-]+; Path=\/ai\/console;/);
  });
});
