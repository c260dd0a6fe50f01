import assert from 'node:assert/strict';
import OpenAI from 'openai';
import type { ConfigInput } from '@tollgate/middleware';
import { startFakeOpenAI, type FakeServer } from '../../fakes/index.js';
import { TEST_KEY, postJson, startGateway, type RunningGateway } from '../../support/gateway.js';

function configFor(fake: FakeServer, http2: boolean): ConfigInput {
  return {
    defaultCatalog: false,
    keys: [{ key: TEST_KEY, org: 'acme' }],
    organizations: { acme: { wallet: 100 } },
    providers: { openai: { kind: 'openai', baseUrl: fake.baseUrl, apiKey: 'sk-fake-openai', retryBaseMs: 1, maxRetries: 0 } },
    models: { gpt: { routes: [{ provider: 'openai', model: 'gpt-4o' }], price: { input: 2.5, output: 10 } } },
    relay: { http2 },
  };
}

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 2_000;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('relay.http2: upstream calls multiplexed over HTTP/2', () => {
  let fake: FakeServer;
  let gateway: RunningGateway;
  let openai: OpenAI;
  beforeEach(async () => {
    fake = await startFakeOpenAI({ http2: true });
    gateway = await startGateway(configFor(fake, true));
    openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
  });
  afterEach(async () => {
    await gateway.close();
    await fake.close();
  });

  async function streamedText(content: string): Promise<string> {
    let text = '';
    for await (const chunk of await openai.chat.completions.create({ model: 'gpt', stream: true, messages: [{ role: 'user', content }] })) text += chunk.choices[0]?.delta.content ?? '';
    return text;
  }

  it('relays a stream from a provider that speaks HTTP/2', async () => {
    assert.equal(await streamedText('hello over h2'), 'Echo: hello over h2');
    assert.equal(fake.requests[0]!.httpVersion, '2.0');
  });

  it('relays a JSON answer from a provider that speaks HTTP/2', async () => {
    const completion = await openai.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'plain answer' }] });
    assert.equal(completion.choices[0]!.message.content, 'Echo: plain answer');
    assert.equal(fake.requests[0]!.httpVersion, '2.0');
  });

  it('carries concurrent streams side by side on one upstream connection', async () => {
    await streamedText('warm up');
    fake.delay(150); // long enough for all five to be in flight together
    fake.maxInFlight = 0;
    const texts = await Promise.all([1, 2, 3, 4, 5].map((n) => streamedText(`stream ${n}`)));
    assert.deepEqual(texts, [1, 2, 3, 4, 5].map((n) => `Echo: stream ${n}`));
    assert.equal(fake.connectionsAccepted, 1);
    // undici runs a POST alone on its connection unless it is marked idempotent (see http2AgentOptions).
    assert.equal(fake.maxInFlight, 5);
  });

  it('cancels the upstream HTTP/2 stream when the client leaves, and keeps the connection for the next call', async () => {
    fake.reply({ endless: true });
    const controller = new AbortController();
    const response = await fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', signal: controller.signal, headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` }, body: JSON.stringify({ model: 'gpt', stream: true, messages: [{ role: 'user', content: 'go on forever' }] }) });
    assert.equal(response.status, 200);
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await until(() => fake.requests[0]!.aborted);
    assert.equal(fake.requests[0]!.aborted, true);
    const streamed = fake.streamedBytes;
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.ok(fake.streamedBytes - streamed < 65_536 * 2, 'the provider stopped streaming');
    fake.reply({});
    assert.equal(await streamedText('after the cancel'), 'Echo: after the cancel');
    assert.equal(fake.connectionsAccepted, 1);
  });
});

describe('relay.http2 against a provider that speaks only HTTP/1.1', () => {
  // Cleartext origins are spoken to as h2c (prior knowledge): an HTTP/1.1 server fails the HTTP/2 preface.
  // (On https, ALPN choosing http/1.1 is refused by name: see http2AgentOptions.)
  it('answers 502, and never pipelines calls on HTTP/1.1', async () => {
    const fake = await startFakeOpenAI();
    const gateway = await startGateway(configFor(fake, true));
    try {
      const response = await postJson(`${gateway.url}/v1/chat/completions`, { model: 'gpt', messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${TEST_KEY}` });
      assert.equal(response.status, 502);
      assert.match(response.body.error.message, /could not be reached/);
      assert.equal(fake.requests.length, 0);
    } finally {
      await gateway.close();
      await fake.close();
    }
  });

  it('keeps HTTP/1.1 by default', async () => {
    const fake = await startFakeOpenAI();
    const gateway = await startGateway(configFor(fake, false));
    try {
      const response = await postJson(`${gateway.url}/v1/chat/completions`, { model: 'gpt', messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${TEST_KEY}` });
      assert.equal(response.status, 200);
      assert.equal(fake.requests[0]!.httpVersion, '1.1');
    } finally {
      await gateway.close();
      await fake.close();
    }
  });
});
