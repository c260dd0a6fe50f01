import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { connect as connectSocket, type AddressInfo, type Socket } from 'node:net';
import connect from 'connect';
import express from 'express';
import { tollgate, type ConfigInput, type Tollgate } from '@tollgate/middleware';
import { startFakeOpenAI } from '../../fakes/index.js';
import type { FakeServer } from '../../fakes/fake-server.js';

const KEY = 'tg-hostile-bodies-key-0123456789abcdef';
const MiB = 1_048_576;

/** What came back on a raw connection: the bytes, and whether the server closed it. */
interface RawAnswer {
  status: number;
  head: string;
  body: string;
  closed: boolean;
  /** Body bytes the client had written when the answer's first byte arrived. */
  sentBeforeAnswer: number;
}

/**
 * Sends a request's head on a raw socket, then `body` bytes (or none), and waits for the answer and
 * for the server to close the connection (up to `waitCloseMs`).
 */
function rawRequest(port: number, head: string, body: { bytes: number; stallAfter?: number } = { bytes: 0 }, waitCloseMs = 2_000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connectSocket(port, '127.0.0.1');
    let received = '';
    let sent = 0;
    let sentBeforeAnswer = -1;
    let closeTimer: NodeJS.Timeout | undefined;
    const done = (closed: boolean) => {
      clearTimeout(closeTimer);
      const [headPart = '', bodyPart = ''] = received.split('\r\n\r\n', 2);
      resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(headPart)?.[1] ?? 0), head: headPart.toLowerCase(), body: bodyPart, closed, sentBeforeAnswer });
      socket.destroy();
    };
    socket.on('error', () => undefined); // EPIPE/ECONNRESET once the server closed: expected
    socket.on('close', () => done(true));
    socket.on('data', (chunk) => {
      if (sentBeforeAnswer === -1) sentBeforeAnswer = sent;
      received += chunk.toString('latin1');
      if (received.includes('\r\n\r\n')) closeTimer ??= setTimeout(() => done(false), waitCloseMs);
    });
    socket.on('connect', () => {
      socket.write(head);
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const limit = body.stallAfter ?? body.bytes;
      const pump = () => {
        while (sent < limit && sentBeforeAnswer === -1 && !socket.destroyed) {
          const size = Math.min(chunk.length, limit - sent);
          sent += size;
          if (!socket.write(chunk.subarray(0, size))) return void socket.once('drain', pump);
        }
      };
      pump();
    });
    socket.setTimeout(15_000, () => reject(new Error(`no answer; got ${JSON.stringify(received.slice(0, 200))}`)));
  });
}

const head = (path: string, bytes: number, key?: string) =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${bytes}\r\n${key ? `Authorization: Bearer ${key}\r\n` : ''}\r\n`;

describe('hostile request bodies (issue 15 items 6 and 7)', () => {
  let openai: FakeServer;
  let gate: Tollgate;
  let server: Server;
  let port: number;
  const logged: string[] = [];

  const config = (): ConfigInput => ({
    defaultCatalog: false,
    keys: [{ key: KEY, org: 'acme' }],
    organizations: { acme: { wallet: 10 } },
    providers: { openai: { kind: 'openai', baseUrl: openai.baseUrl, apiKey: 'sk-fake-openai' } },
    models: { gpt: { routes: [{ provider: 'openai', model: 'gpt-4o' }] } },
    bodyTimeoutMs: 400,
  });

  before(async () => {
    openai = await startFakeOpenAI();
    gate = tollgate(config(), { logger: { info() {}, error: (message) => void logged.push(message) } });
    // Mounted as `tollgate serve` mounts it: in a connect app, whose final handler renders `next(err)` as HTML.
    const app = connect();
    app.use(gate);
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await gate.close();
    await openai.close();
  });

  describe('authentication from the headers, before the body (item 6)', () => {
    for (const path of ['/v1/chat/completions', '/v1/messages', '/v1/responses', '/v1/embeddings', '/v1/messages/count_tokens', '/api/sql/query']) {
      it(`${path}: a keyless request announcing 20 MiB gets 401 before it sent a byte of body, and its connection is closed`, async () => {
        const answer = await rawRequest(port, head(path, 20 * MiB), { bytes: 20 * MiB, stallAfter: 0 });
        assert.equal(answer.status, 401, answer.head);
        assert.equal(answer.sentBeforeAnswer, 0, 'answered before the body was sent');
        assert.ok(answer.closed, 'the server closed the connection');
        assert.match(answer.head, /connection: close/);
        assert.ok(JSON.parse(answer.body.trim().split('\r\n').find((line) => line.startsWith('{')) ?? answer.body).detail);
      });
    }

    it('a keyless client uploading 20 MiB at full speed reads its 401, not a connection reset', async () => {
      for (let i = 0; i < 5; i++) {
        const response = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.alloc(20 * MiB, 0x20) });
        assert.equal(response.status, 401);
        assert.ok(((await response.json()) as { detail: string }).detail);
      }
    });

    it('a keyless request with a chunked body that stalls gets 401 at once and its connection is closed', async () => {
      const chunked = `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n{"model":"gpt",\r\n`;
      const answer = await rawRequest(port, chunked);
      assert.equal(answer.status, 401);
      assert.ok(answer.closed);
    });

    it('a keyless request with bad JSON answers 401, not 422: the key is checked first', async () => {
      const response = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{not json' });
      assert.equal(response.status, 401);
    });

    it('a keyed request is served while eight keyless ones are stalled mid-body, which got their 401 at once', async () => {
      const keyless = Array.from({ length: 8 }, () => rawRequest(port, head('/v1/chat/completions', 7 * MiB), { bytes: 7 * MiB, stallAfter: 2 * MiB }));
      const response = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, body: JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }] }) });
      assert.equal(response.status, 200);
      for (const answer of await Promise.all(keyless)) {
        assert.equal(answer.status, 401);
        assert.ok(answer.sentBeforeAnswer < 7 * MiB, 'answered before the whole body was sent');
        assert.ok(answer.closed);
      }
    });

    it('the body limit still applies to a keyed request: 413', async () => {
      const answer = await rawRequest(port, head('/v1/chat/completions', 21 * MiB, KEY), { bytes: 21 * MiB, stallAfter: 0 });
      assert.equal(answer.status, 413);
    });

    it('a keyed body that stalls ends at the body deadline with 408 in the endpoint\'s envelope, and the connection is closed', async () => {
      const started = Date.now();
      const answer = await rawRequest(port, head('/v1/chat/completions', 1000, KEY) + '{"model":"gpt","messages":');
      assert.equal(answer.status, 408, answer.head);
      assert.ok(Date.now() - started >= 350, 'not before the deadline');
      assert.ok(answer.closed);
      assert.deepEqual(JSON.parse(answer.body), { error: { message: 'The request body did not arrive within 400 ms', type: 'invalid_request_error', param: null, code: 'request_timeout' } });
    });

    it('a whole JSON body shorter than its Content-Length is never served as the request: 408 at the deadline, the provider not called', async () => {
      // The buffered part parses as a complete request: only the declared length tells it is not all of it.
      const json = JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }] });
      const calls = openai.requests.length;
      const answer = await rawRequest(port, head('/v1/chat/completions', json.length + 10, KEY) + json);
      assert.equal(answer.status, 408, answer.head);
      assert.ok(answer.closed);
      assert.equal(openai.requests.length, calls);
    });

    it('on /v1/messages a stalled keyed body answers 408 in the Anthropic envelope', async () => {
      const answer = await rawRequest(port, head('/v1/messages', 1000, KEY) + '{"model":');
      assert.equal(answer.status, 408);
      assert.deepEqual(JSON.parse(answer.body), { type: 'error', error: { type: 'invalid_request_error', message: 'The request body did not arrive within 400 ms' } });
    });

    it('a keyed request refused from its headers keeps its keep-alive connection when its small body arrives', async () => {
      const response = await fetch(`http://127.0.0.1:${port}/api/sql/query`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer tg-wrong-key' }, body: JSON.stringify({ query: 'SELECT 1' }) });
      assert.equal(response.status, 401);
      assert.equal(response.headers.get('connection'), 'keep-alive');
    });
  });

  describe('deeply nested and oversized values (item 7)', () => {
    const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
    const noStackTrace = (text: string) => {
      assert.ok(!/<html|<pre|\bat [\w.<>]+ \(|node:internal|\/work\/|\.ts:\d/.test(text), `leaked internals: ${text.slice(0, 300)}`);
    };

    for (const depth of [65, 10_000, 200_000]) {
      it(`JSON nested ${depth} levels in a validated field answers 422 in the contract's envelope, no stack trace`, async () => {
        const response = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, body: `{"model":"gpt","messages":${nested(depth)}}` });
        const text = await response.text();
        assert.equal(response.status, 422, text);
        assert.match(response.headers.get('content-type') ?? '', /application\/json/);
        const body = JSON.parse(text);
        assert.equal(body.detail[0].type, 'json_too_deep');
        noStackTrace(text);
      });
    }

    it('64 levels are still accepted as JSON (then validated as usual)', async () => {
      const response = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, body: `{"model":"gpt","messages":${nested(63)}}` });
      const body = (await response.json()) as { detail: { type: string }[] };
      assert.equal(response.status, 422);
      assert.notEqual(body.detail[0]!.type, 'json_too_deep');
    });

    it('on /v1/messages deep JSON answers 422 in the Anthropic envelope', async () => {
      const response = await fetch(`http://127.0.0.1:${port}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': KEY }, body: `{"model":"gpt","max_tokens":5,"messages":${nested(100_000)}}` });
      const text = await response.text();
      assert.equal(response.status, 422);
      assert.equal(JSON.parse(text).type, 'error');
      noStackTrace(text);
    });

    it('a huge invalid value is echoed in the 422 truncated, never whole', async () => {
      const response = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, body: JSON.stringify({ model: 'gpt', messages: 'x'.repeat(MiB) }) });
      const text = await response.text();
      assert.equal(response.status, 422);
      assert.ok(text.length < 2_000, `answer of ${text.length} bytes`);
    });

    it('behind express.json() (a body parsed before Tollgate, with no depth bound of its own), deep JSON answers 422, not a 500 page', async () => {
      const app = express();
      app.use(express.json({ limit: '50mb' }));
      app.use(gate);
      const expressServer = createServer(app);
      await new Promise<void>((resolve) => expressServer.listen(0, '127.0.0.1', resolve));
      try {
        const { port: expressPort } = expressServer.address() as AddressInfo;
        const response = await fetch(`http://127.0.0.1:${expressPort}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, body: `{"model":"gpt","messages":${nested(5_000)}}` });
        const text = await response.text();
        assert.equal(response.status, 422, text);
        noStackTrace(text);
      } finally {
        expressServer.closeAllConnections();
        await new Promise((resolve) => expressServer.close(resolve));
      }
    });
  });
});
