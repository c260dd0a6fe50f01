import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import { tollgate, koa, type Tollgate } from '@tollgate/middleware';
import { startScripted, sendJson, chatCompletion } from '../../support/scripted-provider.js';

const KEY = 'tg-hunt-limit-key-01-0123456789abcdef';
const LIMIT = 64 * 1024;

/**
 * README: `maxBodyBytes` is the "largest model request body (413 above)". Behind the body parser every Express or Koa
 * app already has (examples/*: `express.json({ limit: '20mb' })`, `bodyParser({ jsonLimit: '20mb' })`), the parsed
 * object is taken as is and the limit is never checked: a 1 MiB request with a 64 KiB limit is relayed upstream
 * (and paid for) instead of answering 413 `request_too_large`.
 */
describe('maxBodyBytes behind a host body parser', () => {
  let gate: Tollgate;
  let server: Server;
  let provider: Awaited<ReturnType<typeof startScripted>>;

  beforeEach(async () => {
    provider = await startScripted((_req, res) => sendJson(res, 200, chatCompletion('ok', { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 })));
    gate = tollgate(
      {
        defaultCatalog: false,
        maxBodyBytes: LIMIT,
        keys: [{ key: KEY, org: 'acme' }],
        organizations: { acme: { wallet: 5 } },
        providers: { p: { kind: 'openai', baseUrl: provider.baseUrl, apiKey: 'sk-x' } },
        models: { m: { routes: [{ provider: 'p', model: 'gpt-4o' }], price: { input: 1, output: 1 } } },
      },
      { logger: { info() {}, error: (message, error) => console.error(message, error) } },
    );
  });
  afterEach(async () => {
    server?.closeAllConnections();
    server?.close();
    await gate?.close();
    await provider?.close();
  });

  async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
    server = createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  const bigChat = () => JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'lorem ipsum dolor sit amet '.repeat(40_000) }] });

  async function assertRefused(url: string) {
    const response = await fetch(`${url}/ai/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, body: bigChat(), signal: AbortSignal.timeout(5000) });
    const body = (await response.json()) as { error?: { code?: string } };
    assert.equal(response.status, 413, `answered ${response.status} ${JSON.stringify(body).slice(0, 200)}`);
    assert.equal(body.error?.code, 'request_too_large');
    assert.equal(provider.count, 0, 'the over-limit request was relayed to the provider');
  }

  it('answers 413 request_too_large behind express.json() as it does without it', async () => {
    const app = express();
    app.use(express.json({ limit: '20mb' }));
    app.use('/ai', gate);
    await assertRefused(await listen(app));
  });

  it('answers 413 request_too_large behind @koa/bodyparser as it does without it', async () => {
    const app = new Koa();
    app.use(bodyParser({ jsonLimit: '20mb' }));
    const tollgateKoa = koa(gate);
    app.use(async (ctx, next) => {
      if (!ctx.path.startsWith('/ai/')) return next();
      ctx.url = ctx.url.slice('/ai'.length);
      await tollgateKoa(ctx as never, next);
    });
    await assertRefused(await listen(app.callback()));
  });
});
