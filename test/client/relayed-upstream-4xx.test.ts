import assert from 'node:assert/strict';
import { AuthenticationError, ModelNotFoundError, TollgateClient, UpstreamError, WalletEmptyError } from '@tollgate/client';
import { FAKE_ANTHROPIC_KEY, startFakeAnthropic, startFakeOpenAI } from '../fakes/index.js';
import { startGateway, type RunningGateway } from '../support/gateway.js';

const KEY = 'tg-client-relay-001-0123456789abcdef';

/**
 * Contract §7.1: "4xx relayed — the upstream provider rejected something the service forwarded; body has type
 * api_error". The client documents UpstreamError as "the upstream provider rejected, failed or could not be
 * reached (relayed errors and 502)". A provider's 401 (the operator's provider key expired), 402 or 404 must not
 * look like the caller's own Tollgate key being bad, their wallet being empty, or their alias being unknown.
 */
describe('@tollgate/client: an upstream 4xx relayed by Tollgate is an UpstreamError', () => {
  let gateway: RunningGateway;
  let openai: Awaited<ReturnType<typeof startFakeOpenAI>>;
  let anthropic: Awaited<ReturnType<typeof startFakeAnthropic>>;
  let tg: TollgateClient;
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
    tg = new TollgateClient({ baseUrl: gateway.url, apiKey: KEY, sleep: async () => undefined });
  });
  after(async () => {
    await gateway.close();
    await openai.close();
    await anthropic.close();
  });

  it('raises UpstreamError, not AuthenticationError, when the provider rejects Tollgate\'s provider key (relayed 401)', async () => {
    openai.failNext({ status: 401, message: 'Incorrect API key provided: sk-fake-***' });
    const error = await tg.chat({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    assert.equal((error as UpstreamError).status, 401);
    assert.ok(!(error instanceof AuthenticationError), 'a relayed provider 401 says the caller\'s own Tollgate key is bad');
    assert.ok(error instanceof UpstreamError, `${(error as Error).name}: ${(error as Error).message}`);
  });

  it('raises UpstreamError, not ModelNotFoundError, for a relayed provider 404 (a model the provider retired)', async () => {
    openai.failNext({ status: 404, message: 'The model gpt-4o does not exist' });
    const error = await tg.chat({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    assert.equal((error as UpstreamError).status, 404);
    assert.ok(!(error instanceof ModelNotFoundError), 'a relayed provider 404 says the alias "gpt" is not in the catalog');
    assert.ok(error instanceof UpstreamError, `${(error as Error).name}: ${(error as Error).message}`);
  });

  it('raises UpstreamError, not WalletEmptyError, for a relayed provider 402 on /v1/messages', async () => {
    anthropic.failNext({ status: 402, message: 'Your credit balance is too low' });
    const error = await tg.messages({ model: 'claude', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    assert.equal((error as UpstreamError).status, 402);
    assert.ok(!(error instanceof WalletEmptyError), 'a relayed provider 402 says the organization\'s Tollgate wallet is empty');
    assert.ok(error instanceof UpstreamError, `${(error as Error).name}: ${(error as Error).message}`);
  });

  it('still raises AuthenticationError and ModelNotFoundError for Tollgate\'s own 401 and 404', async () => {
    const stranger = new TollgateClient({ baseUrl: gateway.url, apiKey: 'tg-nobody-0000-0123456789abcdef00' });
    assert.ok((await stranger.chat({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e)) instanceof AuthenticationError);
    assert.ok((await tg.chat({ model: 'no-such-alias', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e)) instanceof ModelNotFoundError);
    assert.ok((await tg.messages({ model: 'no-such-alias', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e)) instanceof ModelNotFoundError);
  });
});
