import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { startGateway, type RunningGateway } from '../../support/gateway.js';
import { sendJson, startScripted } from '../../support/scripted-provider.js';

const KEY = 'tg-count-acme-key-0123456789abcdefXYZ';
const OTHER_KEY = 'tg-count-beta-key-0123456789abcdefXYZ';

/**
 * count_tokens is neither billed nor rate-counted (README), but each one costs the tokenizer's CPU or a call on the
 * operator's provider key: one key holder sending thousands at once must meet its organization's concurrency limit.
 */
describe('token counts running at once are held to the organization\'s concurrency limit', function () {
  this.timeout(30_000);
  let held: (() => void)[] = [];
  let provider: Awaited<ReturnType<typeof startScripted>>;
  let gateway: RunningGateway;
  let errorsLogged: string[];

  beforeEach(async () => {
    held = [];
    // Anthropic's count endpoint, answering only when the test lets it.
    provider = await startScripted((_req, res) => {
      held.push(() => sendJson(res, 200, { input_tokens: 7 }));
    }, '');
    errorsLogged = [];
    gateway = await startGateway({
      defaultCatalog: false,
      keys: [
        { key: KEY, org: 'acme' },
        { key: OTHER_KEY, org: 'beta' },
      ],
      organizations: { acme: { wallet: 10, limits: { concurrency: 2 } }, beta: { wallet: 10, limits: { concurrency: 2 } } },
      providers: { anthropic: { kind: 'anthropic', baseUrl: provider.baseUrl, apiKey: 'sk-y', retryBaseMs: 1 } },
      models: { claude: { routes: [{ provider: 'anthropic', model: 'claude-haiku-4-5' }], price: { input: 1, output: 1 } } },
    }, { logger: { info() {}, error: (message) => errorsLogged.push(message) } });
  });
  afterEach(async () => {
    for (const release of held) release();
    await gateway.close();
    await provider.close();
  });

  const count = (key: string) =>
    fetch(`${gateway.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'claude', messages: [{ role: 'user', content: 'hi' }] }),
    });

  async function waitForHeld(n: number) {
    const until = Date.now() + 10_000;
    while (held.length < n) {
      if (Date.now() > until) throw new Error(`only ${held.length} counts reached the provider`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  it('a third count while two run answers 429 rate_limited in the Anthropic envelope, marked retryable, and reaches no provider', async () => {
    const running = [count(KEY), count(KEY)];
    await waitForHeld(2);
    const third = await count(KEY);
    assert.equal(third.status, 429);
    // /v1/messages errors carry no §7.2 headers (DESIGN; `anthropicDenialHeaders` turns them on): the SDK retries on this.
    assert.equal(third.headers.get('x-should-retry'), 'true');
    const body = (await third.json()) as { type: string; error: { type: string; message: string } };
    assert.equal(body.type, 'error');
    assert.equal(body.error.type, 'rate_limit_error');
    assert.match(body.error.message, /token counts/);
    assert.equal(provider.bodies.length, 2);
    for (const release of held.splice(0)) release();
    assert.deepEqual(await Promise.all(running.map(async (r) => (await r).status)), [200, 200]);
  });

  it('another organization\'s counts are not held by it, and its slots come back once its counts are answered', async () => {
    const running = [count(KEY), count(KEY)];
    await waitForHeld(2);
    const other = count(OTHER_KEY);
    await waitForHeld(3);
    for (const release of held.splice(0)) release();
    assert.equal((await other).status, 200);
    await Promise.all(running);
    const sdk = new Anthropic({ baseURL: gateway.url, apiKey: KEY, maxRetries: 0 });
    const again = sdk.messages.countTokens({ model: 'claude', messages: [{ role: 'user', content: 'hi' }] });
    await waitForHeld(1);
    for (const release of held.splice(0)) release();
    assert.equal((await again).input_tokens, 7);
  });

  it('a count the provider refuses gives its slot back', async () => {
    provider.set((_req, res) => sendJson(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'bad' } }));
    for (let i = 0; i < 4; i++) assert.equal((await count(KEY)).status, 400);
    provider.set((_req, res) => sendJson(res, 200, { input_tokens: 7 }));
    assert.equal((await count(KEY)).status, 200);
  });

  it('clients that leave while their counts run give the slots back, and no internal error is logged', async () => {
    const leaving = [new AbortController(), new AbortController()];
    const gone = leaving.map((controller) =>
      fetch(`${gateway.url}/v1/messages/count_tokens`, {
        method: 'POST',
        signal: controller.signal,
        headers: { 'content-type': 'application/json', 'x-api-key': KEY, 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ model: 'claude', messages: [{ role: 'user', content: 'hi' }] }),
      }).catch(() => 'left'),
    );
    await waitForHeld(2);
    for (const controller of leaving) controller.abort();
    assert.deepEqual(await Promise.all(gone), ['left', 'left']);
    held.splice(0);
    const after = count(KEY);
    await waitForHeld(1);
    for (const release of held.splice(0)) release();
    assert.equal((await after).status, 200);
    assert.deepEqual(errorsLogged, []);
  });
});
