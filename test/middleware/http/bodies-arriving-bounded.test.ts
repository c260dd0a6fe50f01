import assert from 'node:assert/strict';
import { connect as connectSocket, type AddressInfo, type Socket } from 'node:net';
import { createServer, type Server } from 'node:http';
import { tollgate, type Tollgate } from '@tollgate/middleware';
import { startFakeOpenAI } from '../../fakes/index.js';

const KEY = 'tg-uploads-bound-key-0123456789abcdef';
const OTHER_KEY = 'tg-uploads-other-org-0123456789abcdef';
const CONCURRENCY = 2;

/**
 * A body is read before admission, so one key could hold any number of slow uploads of up to `maxBodyBytes` each
 * (a thousand connections sending 19 of a declared 20 MiB: 19 GB). An organization's bodies arriving at once are
 * bounded by its `limits.concurrency`.
 */
describe("request bodies arriving at once are bounded by the organization's concurrency limit", () => {
  let gate: Tollgate;
  let server: Server;
  let port: number;
  let openai: Awaited<ReturnType<typeof startFakeOpenAI>>;
  const sockets: Socket[] = [];

  before(async () => {
    openai = await startFakeOpenAI();
    gate = tollgate(
      {
        defaultCatalog: false,
        keys: [
          { key: KEY, org: 'acme' },
          { key: OTHER_KEY, org: 'globex' },
        ],
        organizations: { acme: { wallet: 10, limits: { concurrency: CONCURRENCY } }, globex: { wallet: 10, limits: { concurrency: CONCURRENCY } } },
        providers: { openai: { kind: 'openai', baseUrl: openai.baseUrl, apiKey: 'sk-fake-openai' } },
        models: { gpt: { routes: [{ provider: 'openai', model: 'gpt-4o' }], price: { input: 1, output: 1 } } },
      },
      { logger: { info() {}, error() {} } },
    );
    server = createServer(gate);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    await gate.ready();
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await gate.close();
    await openai.close();
  });

  /** A POST that declares a 1 MiB body, sends its first 64 KiB and stalls; resolves with the raw answer once it closes. */
  const stalledUpload = async (path: string, key = KEY) => {
    const socket = connectSocket(port, '127.0.0.1');
    sockets.push(socket);
    socket.on('error', () => undefined);
    let answer = '';
    socket.on('data', (data) => void (answer += data.toString('latin1')));
    const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(answer)));
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${1024 * 1024}\r\n\r\n`);
    socket.write(Buffer.alloc(64 * 1024, 0x20));
    return { socket, closed, answer: () => answer };
  };
  const settle = () => new Promise((resolve) => setTimeout(resolve, 200));
  const chat = (key = KEY) =>
    fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }] }),
    });

  it('answers the body past the limit 429 rate_limited with Retry-After and closes its connection; the other organization and, once they end, the same one are served', async () => {
    const held = [await stalledUpload('/v1/messages'), await stalledUpload('/api/sql/query')];
    await settle();
    const refused = await stalledUpload('/v1/chat/completions');
    const answer = await Promise.race([refused.closed, new Promise<string>((resolve) => setTimeout(() => resolve('(no answer within 5 s: the upload was being read)'), 5_000))]);
    assert.match(answer, /^HTTP\/1\.1 429 /);
    assert.match(answer, /\r\nretry-after: 1\r\n/i);
    assert.match(answer, /\r\nconnection: close\r\n/i);
    assert.match(answer, /"code":"rate_limited"/);

    // Another organization's uploads are its own.
    const other = await chat(OTHER_KEY);
    assert.equal(other.status, 200);

    // A small body arrives with its headers and is whole at once: it takes no upload slot.
    assert.equal((await chat()).status, 200);

    // The stalled clients leave: their slots are free at once, not at the body deadline.
    for (const { socket } of held) socket.destroy();
    await settle();
    const next = await stalledUpload('/v1/chat/completions');
    await settle();
    assert.equal(next.answer(), '', 'the next upload is being read, not refused');
    next.socket.destroy();
  });
});
