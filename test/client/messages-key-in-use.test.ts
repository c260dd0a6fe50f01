import assert from 'node:assert/strict';
import { TollgateClient } from '@tollgate/client';
import { FAKE_ANTHROPIC_KEY, startFakeAnthropic, startFakeOpenAI } from '../fakes/index.js';
import { startGateway, type RunningGateway } from '../support/gateway.js';

const KEY = 'tg-client-409-0001-0123456789abcdef';

/**
 * README "@tollgate/client": "a `409 idempotency_key_in_use` (still running) is retried with backoff". On
 * /v1/messages Tollgate answers that 409 in the Anthropic envelope, which has no `code` (only
 * `x-should-retry: true`), so the client must not need the code to recognise it.
 */
describe('@tollgate/client: 409 idempotency_key_in_use is retried on every endpoint family', () => {
  let gateway: RunningGateway;
  let openai: Awaited<ReturnType<typeof startFakeOpenAI>>;
  let anthropic: Awaited<ReturnType<typeof startFakeAnthropic>>;
  before(async () => {
    openai = await startFakeOpenAI();
    anthropic = await startFakeAnthropic();
    gateway = await startGateway({
      defaultCatalog: false,
      keys: [{ key: KEY, org: 'acme' }],
      organizations: { acme: { wallet: 10 } },
      providers: {
        openai: { kind: 'openai', baseUrl: openai.baseUrl, apiKey: 'sk-fake-openai' },
        anthropic: { kind: 'anthropic', baseUrl: anthropic.baseUrl, apiKey: FAKE_ANTHROPIC_KEY },
      },
      models: { gpt: { routes: [{ provider: 'openai', model: 'gpt-4o' }] }, claude: { routes: [{ provider: 'anthropic', model: 'claude-sonnet-4-5' }] } },
    });
  });
  after(async () => {
    await gateway.close();
    await openai.close();
    await anthropic.close();
  });

  // Real sleeps, short backoff: the repeat keeps retrying until the first call's answer is kept, then gets it replayed.
  const client = () => new TollgateClient({ baseUrl: gateway.url, apiKey: KEY, backoff: { baseMs: 200, maxMs: 400 }, random: () => 1 });

  it('a chat call repeating a running Idempotency-Key waits for the first and gets its answer (control)', async () => {
    openai.delay(600);
    try {
      const body = { model: 'gpt', messages: [{ role: 'user' as const, content: 'one two' }] };
      const first = client().chat(body, { idempotencyKey: 'chat-key-0001' });
      await new Promise((resolve) => setTimeout(resolve, 150));
      const second = await client().chat(body, { idempotencyKey: 'chat-key-0001' });
      assert.deepEqual(second, await first);
      assert.equal(openai.requests.length, 1);
    } finally {
      openai.delay(0);
    }
  });

  it('a /v1/messages call repeating a running Idempotency-Key waits for the first and gets its answer, not a 409', async () => {
    anthropic.delay(600);
    try {
      const body = { model: 'claude', max_tokens: 32, messages: [{ role: 'user' as const, content: 'one two' }] };
      const first = client().messages(body, { idempotencyKey: 'messages-key-0001' });
      await new Promise((resolve) => setTimeout(resolve, 150));
      const second = await client()
        .messages(body, { idempotencyKey: 'messages-key-0001' })
        .catch((e: unknown) => e);
      assert.ok(!(second instanceof Error), `the repeat raised ${(second as Error).name} ${(second as { status?: number }).status}: ${(second as Error).message}`);
      assert.deepEqual(second, await first);
      assert.equal(anthropic.requests.length, 1, 'the provider ran once');
    } finally {
      anthropic.delay(0);
    }
  });
});
