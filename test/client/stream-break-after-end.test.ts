import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { TollgateClient } from '@tollgate/client';
import { startFakeOpenAI } from '../fakes/index.js';
import { startGateway, type RunningGateway } from '../support/gateway.js';

const KEY = 'tg-client-tail-0001-0123456789abcdef';

/**
 * A TCP proxy in front of Tollgate that relays every byte of an answer except the chunked encoding's last chunk
 * (`0\r\n\r\n`), then drops the connection: every SSE event, the finish_reason chunk and `[DONE]` included,
 * reached the client; only the end of the HTTP message did not (a proxy or load balancer closing at its timeout).
 */
async function startTailCuttingProxy(target: URL): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const terminator = Buffer.from('0\r\n\r\n');
  const server: Server = createServer((client) => {
    sockets.add(client);
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(upstream);
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk: Buffer) => {
      const at = chunk.indexOf(terminator);
      if (at < 0) return void client.write(chunk);
      client.write(chunk.subarray(0, at));
      setTimeout(() => {
        client.destroy();
        upstream.destroy();
      }, 20);
    });
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * README "@tollgate/client": "A stream without its normal end raises StreamInterruptedError"; contract §6.1: the
 * normal end of an OpenAI-compatible stream is "a chunk carrying a finish_reason is delivered" (message_stop on
 * /v1/messages). A connection that drops after the normal end was delivered is a finished, billed generation:
 * raising StreamInterruptedError tells the caller it failed, and a retry pays for it again.
 */
describe('@tollgate/client: a stream whose connection drops after its normal end was delivered', () => {
  let gateway: RunningGateway;
  let openai: Awaited<ReturnType<typeof startFakeOpenAI>>;
  let proxy: Awaited<ReturnType<typeof startTailCuttingProxy>>;
  let tg: TollgateClient;
  before(async () => {
    openai = await startFakeOpenAI();
    gateway = await startGateway({
      defaultCatalog: false,
      keys: [{ key: KEY, org: 'acme' }],
      organizations: { acme: { wallet: 10 } },
      providers: { openai: { kind: 'openai', baseUrl: openai.baseUrl, apiKey: 'sk-fake-openai' } },
      models: { gpt: { routes: [{ provider: 'openai', model: 'gpt-4o' }], price: { input: 2.5, output: 10 } } },
    });
    proxy = await startTailCuttingProxy(new URL(gateway.url));
    tg = new TollgateClient({ baseUrl: proxy.url, apiKey: KEY, sleep: async () => undefined });
  });
  after(async () => {
    await proxy.close();
    await gateway.close();
    await openai.close();
  });

  it('ends a chat stream normally once its finish_reason chunk arrived', async () => {
    let text = '';
    let finish: string | null = null;
    const error = await (async () => {
      for await (const chunk of tg.chatStream({ model: 'gpt', messages: [{ role: 'user', content: 'one two three' }] })) {
        text += chunk.choices[0]?.delta.content ?? '';
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
    })().catch((e: unknown) => e);
    assert.equal(finish, 'stop', 'the finish_reason chunk reached the client');
    assert.equal(text, 'Echo: one two three');
    assert.equal((await gateway.gate.admin.usage('acme')).requests, 1, 'Tollgate served and billed it as a finished generation');
    assert.equal(error, undefined, `the finished stream raised ${(error as Error)?.name}: ${(error as Error)?.message}`);
  });

  it('ends a /v1/messages stream normally once message_stop arrived', async () => {
    const types: string[] = [];
    const error = await (async () => {
      for await (const event of tg.messagesStream({ model: 'gpt', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] })) types.push(event.type);
    })().catch((e: unknown) => e);
    assert.equal(types.at(-1), 'message_stop');
    assert.equal(error, undefined, `the finished stream raised ${(error as Error)?.name}: ${(error as Error)?.message}`);
  });
});
