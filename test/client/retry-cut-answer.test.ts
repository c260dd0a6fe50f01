import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { TollgateClient } from '@tollgate/client';
import { startFakeOpenAI } from '../fakes/index.js';
import { startGateway, type RunningGateway } from '../support/gateway.js';

const KEY = 'tg-client-cut-0001-0123456789abcdef';

/**
 * A TCP proxy in front of Tollgate that cuts the first answer after its head and a few body bytes (a load
 * balancer's idle cut, a proxy restarting): the request ran on Tollgate, the client saw `200` and then lost the body.
 */
async function startCuttingProxy(target: URL): Promise<{ url: string; close(): Promise<void> }> {
  let first = true;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(upstream);
    const cut = first;
    first = false;
    let seen = Buffer.alloc(0);
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk: Buffer) => {
      if (!cut) return void client.write(chunk);
      seen = Buffer.concat([seen, chunk]);
      const headEnd = seen.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      client.write(seen.subarray(0, headEnd + 4 + 5)); // the 200 head and 5 bytes of the body
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
 * README "@tollgate/client": "A lost connection raises OutcomeUnknownError and is not retried unless
 * retryConnectionFailures is set; so does an answer that breaks off after its 200 head". With the option set,
 * the cut answer is retried with the same Idempotency-Key and answered from the stored answer, billed once.
 */
describe('@tollgate/client: retryConnectionFailures also covers an answer that breaks off after its 200 head', () => {
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

  it('retries a chat call whose JSON answer was cut mid-body and gets the run\'s answer, billed once', async () => {
    const proxy = await startCuttingProxy(new URL(gateway.url));
    try {
      const tg = new TollgateClient({ baseUrl: proxy.url, apiKey: KEY, retryConnectionFailures: true, sleep: async () => undefined });
      const completion = await tg.chat({ model: 'gpt', messages: [{ role: 'user', content: 'one two three' }] }).catch((e: unknown) => e);
      assert.ok(!(completion instanceof Error), `${(completion as Error).name}: ${(completion as Error).message}`);
      assert.equal((completion as { choices: { message: { content: string } }[] }).choices[0]?.message.content, 'Echo: one two three');
      assert.equal(openai.requests.length, 1, 'the upstream ran once');
      const usage = await gateway.gate.admin.usage('acme');
      assert.equal(usage.requests, 1);
      assert.equal(Math.round((10 - usage.wallet) * 1e6), 48);
    } finally {
      await proxy.close();
    }
  });
});
