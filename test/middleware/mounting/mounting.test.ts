import assert from 'node:assert/strict';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import connect from 'connect';
import express from 'express';
import { tollgate, type Tollgate } from '@tollgate/middleware';

const KEY = 'tg-mount-test-0001';
const config = { keys: [{ key: KEY, org: 'acme' }], organizations: { acme: {} } };

async function listen(handler: RequestListener): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

async function selectOne(url: string): Promise<unknown> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, body: JSON.stringify({ query: 'SELECT 1 AS one' }) });
  assert.equal(response.status, 200);
  return response.json();
}

const expected = { type: 'table', column_names: ['one'], column_types: [{ declared: null, storage: 'integer' }], data: [[1]], context: { db: 'main' } };

describe('mounting the middleware', () => {
  let gate: Tollgate;
  let server: Server | undefined;
  beforeEach(() => {
    gate = tollgate(config, { logger: { info() {}, error() {} } });
  });
  afterEach(async () => {
    server?.closeAllConnections();
    server?.close();
    await gate.close();
  });

  it('serves from a plain node:http server', async () => {
    let url: string;
    ({ url, server } = await listen(gate));
    assert.deepEqual(await selectOne(`${url}/api/sql/query`), expected);
  });

  it('serves from connect and leaves other paths to the next handler', async () => {
    const app = connect();
    app.use(gate);
    app.use((_req, res) => res.end('next handler'));
    let url: string;
    ({ url, server } = await listen(app));
    assert.deepEqual(await selectOne(`${url}/api/sql/query`), expected);
    assert.equal(await (await fetch(`${url}/elsewhere`)).text(), 'next handler');
  });

  it('serves under a prefix with app.use("/db", gate)', async () => {
    const app = connect();
    app.use('/db', gate);
    let url: string;
    ({ url, server } = await listen(app));
    assert.deepEqual(await selectOne(`${url}/db/api/sql/query`), expected);
  });

  it('serves behind Express with express.json() in front, using the already parsed body', async () => {
    const app = express();
    app.use(express.json());
    app.use('/api-root', gate);
    app.use((_req, res) => {
      res.status(418).send('express next');
    });
    let url: string;
    ({ url, server } = await listen(app));
    assert.deepEqual(await selectOne(`${url}/api-root/api/sql/query`), expected);
    const unknown = await fetch(`${url}/api-root/not-served`);
    assert.equal(unknown.status, 418);
  });
});
