import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { TollgateClient } from '@tollgate/client';
import { startFakeOpenAI } from '../fakes/index.js';
import { startGateway, type RunningGateway } from '../support/gateway.js';

const KEY = 'tg-client-idem-0001-0123456789abcdef';

/**
 * A TCP proxy in front of Tollgate that loses the first answer: the request reaches Tollgate and runs,
 * and the client's connection is reset as the answer comes back.
 */
async function startLossyProxy(target: URL): Promise<{ url: string; close(): Promise<void> }> {
  let first = true;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(upstream);
    const loseAnswer = first;
    first = false;
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => {
      if (loseAnswer) {
        client.resetAndDestroy();
        upstream.destroy();
      } else client.write(chunk);
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

describe('@tollgate/client: retryConnectionFailures with idempotency keys', () => {
  let gateway: RunningGateway;
  let openai: Awaited<ReturnType<typeof startFakeOpenAI>>;
  before(async () => {
    openai = await startFakeOpenAI();
    gateway = await startGateway({
      defaultCatalog: false,
      keys: [{ key: KEY, org: 'acme' }],
      organizations: { acme: { wallet: 10 } },
      providers: { openai: { kind: 'openai', baseUrl: openai.baseUrl, apiKey: 'sk-fake-openai' } },
      models: { gpt: { routes: [{ provider: 'openai', model: 'gpt-4o' }], price: { input: 2.5, output: 10 } } },
    });
  });
  after(async () => {
    await gateway.close();
    await openai.close();
  });

  it('retries a chat call whose answer was lost, gets the answer of the run, billed once', async () => {
    const proxy = await startLossyProxy(new URL(gateway.url));
    try {
      const tg = new TollgateClient({ baseUrl: proxy.url, apiKey: KEY, retryConnectionFailures: true, sleep: async () => undefined });
      const completion = await tg.chat({ model: 'gpt', messages: [{ role: 'user', content: 'one two three' }] });
      assert.equal(completion.choices[0]?.message.content, 'Echo: one two three');
      assert.equal(openai.requests.length, 1, 'the upstream ran once');
      const usage = await gateway.gate.admin.usage('acme');
      assert.equal(usage.requests, 1);
      assert.equal(Math.round((10 - usage.wallet) * 1e6), 48);
    } finally {
      await proxy.close();
    }
  });
});
