import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { tollgate, type Tollgate } from '@tollgate/middleware';

const ADMIN_KEY = 'tg-mounted-admin-01-0123456789abcdef';

describe('the console mounted under a prefix', () => {
  let gate: Tollgate;
  let server: Server;
  afterEach(async () => {
    server?.closeAllConnections();
    server?.close();
    await gate?.close();
  });

  it('names its assets and scopes its cookies under the prefix the browser sees (Express app.use("/ai", gate))', async () => {
    gate = tollgate({ keys: [{ key: ADMIN_KEY, org: 'acme', scopes: ['admin'] }], organizations: { acme: { wallet: 1 } }, console: { path: '/ops' } }, { logger: { info() {}, error() {} } });
    const app = express();
    app.use('/ai', gate);
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const page = await fetch(`${url}/ai/ops`);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /<meta name="tollgate-console-base" content="\/ai\/ops">/);
    assert.match(html, /src="\/ai\/ops\/assets\/console\.js"/);
    const loginCookie = page.headers.getSetCookie()[0]!;
    assert.match(loginCookie, /; Path=\/ai\/ops;/);
    const token = /^tollgate_console_login=([^;]+)/.exec(loginCookie)![1]!;
    const login = await fetch(`${url}/ai/ops/login`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_KEY}`, 'x-csrf-token': token, cookie: `tollgate_console_login=${token}` } });
    assert.equal(login.status, 200);
    assert.match(login.headers.getSetCookie()[0]!, /^tollgate_console=[\w-]+; Path=\/ai\/ops;/);
    // Paths beside the console's are not its own.
    assert.equal((await fetch(`${url}/ai/opsx`)).status, 404);
  });
});
