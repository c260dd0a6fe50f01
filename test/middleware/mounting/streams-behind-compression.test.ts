import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGzip } from 'node:zlib';
import express from 'express';
import { tollgate, type Tollgate } from '@tollgate/middleware';
import { startScripted } from '../../support/scripted-provider.js';

const KEY = 'tg-hunt-comp-key-01-0123456789abcdef';

/**
 * The host's response compression, as Express's `compression()` does it (not a dependency of this project, so its
 * mechanism is written out here): what the handler writes goes through a gzip stream, which emits output only in
 * blocks or at the end, and `res.flush()` pushes out what it holds — the hook compression() documents for
 * server-sent events. (Checked the same way with compression@1.8.2 itself: no event arrives until the stream ends.)
 */
function gzipResponses(req: IncomingMessage, res: ServerResponse, next: () => void): void {
  if (!/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) return next();
  const gzip = createGzip();
  const write = res.write.bind(res) as (chunk: Buffer) => boolean;
  const end = res.end.bind(res) as () => void;
  const writeHead = res.writeHead.bind(res) as (status: number, headers?: OutgoingHttpHeaders) => ServerResponse;
  gzip.on('data', (chunk: Buffer) => write(chunk));
  gzip.on('end', () => end());
  Object.assign(res, {
    writeHead(status: number, headers: OutgoingHttpHeaders = {}) {
      const { 'content-length': _dropped, ...rest } = headers;
      res.removeHeader('content-length');
      return writeHead(status, { ...rest, 'content-encoding': 'gzip', vary: 'Accept-Encoding' });
    },
    write: (chunk: string | Buffer) => gzip.write(chunk),
    end(chunk?: string | Buffer | (() => void)) {
      if (chunk !== undefined && typeof chunk !== 'function') gzip.write(chunk);
      gzip.end();
      return res;
    },
    flush: () => gzip.flush(),
  });
  next();
}

const chunk = (delta: object, finish: string | null, usage?: object) =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) })}\n\n`;

/**
 * A streamed chat completion behind Express with response compression in front: each event must reach the client
 * as the provider sends it (README "SSE streaming"). The SSE writer never calls `res.flush()`, so the gzip stream
 * holds every event until the provider ends: a client sees nothing for the whole generation (a "hang" for a long
 * answer, and the SDKs' idle timeouts fire).
 */
describe('a stream behind the host\'s response compression', () => {
  let gate: Tollgate;
  let server: Server;
  let provider: Awaited<ReturnType<typeof startScripted>>;
  let release: () => void = () => {};

  afterEach(async () => {
    release();
    server?.closeAllConnections();
    server?.close();
    await gate?.close();
    await provider?.close();
  });

  it('delivers the first event while the provider is still generating', async () => {
    provider = await startScripted(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ role: 'assistant', content: 'Hello' }, null));
      await new Promise<void>((resolve) => (release = resolve));
      res.write(chunk({}, 'stop', { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 }));
      res.end('data: [DONE]\n\n');
    });
    gate = tollgate(
      {
        defaultCatalog: false,
        keys: [{ key: KEY, org: 'acme' }],
        organizations: { acme: { wallet: 5 } },
        providers: { p: { kind: 'openai', baseUrl: provider.baseUrl, apiKey: 'sk-x' } },
        models: { m: { routes: [{ provider: 'p', model: 'gpt-4o' }], price: { input: 1, output: 1 } } },
      },
      { logger: { info() {}, error: (message, error) => console.error(message, error) } },
    );
    const app = express();
    app.use(gzipResponses);
    app.use(express.json());
    app.use('/ai', gate);
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const response = await fetch(`${url}/ai/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}`, 'accept-encoding': 'gzip' },
      body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-encoding'), 'gzip');
    const reader = response.body!.getReader();
    const first = await Promise.race([reader.read(), new Promise<'nothing'>((resolve) => setTimeout(() => resolve('nothing'), 2000))]);
    assert.notEqual(first, 'nothing', 'no byte of the stream reached the client in 2 s while the provider held it open');
    assert.match(new TextDecoder().decode((first as { value: Uint8Array }).value), /"content":"Hello"/);
    release();
    let rest = '';
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      rest += new TextDecoder().decode(next.value);
    }
    assert.match(rest, /data: \[DONE\]/);
  });
});
