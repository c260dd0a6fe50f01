import assert from 'node:assert/strict';
import { startFakeOpenAI } from '../fakes/index.js';
import { TEST_KEY, postJson, startGateway, type RunningGateway } from '../support/gateway.js';
import { openStalledRequest, waitUntil } from '../support/stalled-client.js';
import { startChildGateway } from './child-gateway.js';

const MIB = 1_048_576;
const auth = { authorization: `Bearer ${TEST_KEY}` };
const messages = [{ role: 'user', content: 'hi' }];

function configFor(openaiBaseUrl: string, extra: Record<string, unknown> = {}) {
  return {
    defaultCatalog: false,
    keys: [{ key: TEST_KEY, org: 'acme' }],
    // The overdraft admits all 50 (each reserves its worst case, ~0.041 USD: README "Reservations"); the endless
    // fake ignores the output budget, so what they stream costs more than was reserved.
    organizations: { acme: { wallet: 0.000001, overdraft: 3 } },
    providers: { openai: { kind: 'openai' as const, baseUrl: openaiBaseUrl, apiKey: 'sk-fake-openai', retryBaseMs: 1 } },
    models: { gpt: { routes: [{ provider: 'openai', model: 'gpt-4o' }], price: { input: 2.5, output: 10 } } },
    ...extra,
  };
}

describe('hostile clients and providers, at scale (npm run test:hostile)', function () {
  this.timeout(120_000);
  let openai: Awaited<ReturnType<typeof startFakeOpenAI>>;
  let gateway: RunningGateway | undefined;
  beforeEach(async () => {
    openai = await startFakeOpenAI();
  });
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
    await openai.close();
  });

  it('leaves none of 50 streaming clients that stop reading, then disconnect, stuck: every slot freed, every request billed', async () => {
    gateway = await startGateway(configFor(openai.baseUrl));
    openai.reply({ text: 'lorem ipsum dolor sit amet '.repeat(40), endless: true });
    const sockets = await Promise.all(Array.from({ length: 50 }, () => openStalledRequest(gateway!.url, '/v1/chat/completions', TEST_KEY, { model: 'gpt', stream: true, messages })));
    await waitUntil('all 50 are streaming', () => openai.requests.length === 50, 20_000);
    // Let every stream fill its client's buffers and block on backpressure.
    let last = -1;
    await waitUntil('the provider is blocked by every stream', () => {
      const same = openai.streamedBytes === last;
      last = openai.streamedBytes;
      return same;
    }, 30_000);
    for (const socket of sockets) socket.destroy();
    await waitUntil('every slot is released', async () => (await gateway!.gate.admin.usage('acme')).inFlight === 0, 30_000);
    const usage = await gateway.gate.admin.usage('acme');
    assert.equal(usage.requests, 50);
    assert.ok(usage.outputTokens > 50 * 10_000, `billed ${usage.outputTokens} output tokens for ${openai.streamedBytes} bytes streamed`);
    assert.ok(usage.wallet < -1, `wallet ${usage.wallet}`);
    await waitUntil('every upstream stream is cancelled', () => openai.requests.every((request) => request.aborted), 10_000);
  });

  it('answers a 600 MB provider answer with 502 upstream_answer_too_large under the default 32 MiB limit, with the gateway RSS bounded', async () => {
    const child = await startChildGateway(configFor(openai.baseUrl, { organizations: { acme: { wallet: 100 } } }));
    try {
      const before = await child.rss();
      openai.reply({ answerBytes: 600 * MIB });
      const started = Date.now();
      const response = await postJson(`${child.url}/v1/chat/completions`, { model: 'gpt', messages }, auth);
      const took = Date.now() - started;
      assert.equal(response.status, 502);
      assert.equal(response.body.error.code, 'upstream_answer_too_large');
      assert.equal(openai.requests.length, 1);
      const after = await child.rss();
      assert.ok(after - before < 128 * MIB, `RSS ${Math.round(before / MIB)} → ${Math.round(after / MIB)} MiB`);
      assert.ok(took < 10_000, `answered after ${took} ms`);
      // An answer just under the default still goes through.
      openai.reply({ answerBytes: 30 * MIB });
      const under = await postJson(`${child.url}/v1/chat/completions`, { model: 'gpt', messages }, auth);
      assert.equal(under.status, 200);
      assert.ok(under.body.choices[0].message.content.length > 30 * MIB - 1_000);
    } finally {
      await child.close();
    }
  });

  it('answers 502 when an answer within a 512 MiB limit is too long to decode as a string, instead of never answering', async () => {
    // Exactly 512 MiB is within the limit and 24 characters past V8's longest string: decoding it throws
    // inside undici's callback.
    const child = await startChildGateway(configFor(openai.baseUrl, { organizations: { acme: { wallet: 100 } }, relay: { maxAnswerBytes: 512 * MIB } }));
    try {
      openai.reply({ answerBytes: 512 * MIB });
      const response = await postJson(`${child.url}/v1/chat/completions`, { model: 'gpt', messages }, auth);
      assert.equal(response.status, 502);
      assert.equal(response.body.error.code, 'upstream_answer_too_large');
      assert.match(response.body.error.message, /too large to decode/);
      assert.equal(openai.requests.length, 1);
    } finally {
      await child.close();
    }
  });
});
