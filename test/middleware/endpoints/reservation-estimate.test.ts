import assert from 'node:assert/strict';
import { countTokens, estimateInputTokens } from '../../../packages/middleware/src/tokenize/index.js';
import { FAKE_OPENAI_KEY, startFakeOpenAI } from '../../fakes/index.js';
import { postJson, startGateway, TEST_KEY, type RunningGateway } from '../../support/gateway.js';

/**
 * A priced prompt's reservation (README "Reservations") takes the tokenizer's estimate of the prompt, not a
 * cheaper upper bound such as its UTF-8 bytes: a bound would refuse requests the wallet holds.
 */
describe('the prompt estimate a reservation takes', function () {
  let openai: Awaited<ReturnType<typeof startFakeOpenAI>>;
  let gateway: RunningGateway | undefined;
  const prompt = { model: 'per-token', max_tokens: 1, messages: [{ role: 'user', content: 'hello '.repeat(40) }] };
  const estimate = estimateInputTokens(prompt);
  const bytes = Buffer.byteLength(prompt.messages[0]!.content);

  before(async () => {
    openai = await startFakeOpenAI();
  });
  after(() => openai.close());
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
  });

  /** One USD per input token, output free: a request's worst case is its prompt estimate, in USD. */
  async function withWallet(usd: number): Promise<RunningGateway> {
    gateway = await startGateway({
      defaultCatalog: false,
      keys: [{ key: TEST_KEY, org: 'acme' }],
      organizations: { acme: { wallet: usd } },
      providers: { openai: { kind: 'openai', baseUrl: openai.baseUrl, apiKey: FAKE_OPENAI_KEY } },
      models: { 'per-token': { routes: [{ provider: 'openai', model: 'gpt-4o' }], price: { input: 1_000_000, output: 0 } } },
    });
    return gateway;
  }

  it('admits a request whose wallet covers the token estimate but not the prompt\'s bytes', async () => {
    assert.ok(bytes > 2 * (estimate + 1), `bytes ${bytes}, estimate ${estimate}`);
    const { url } = await withWallet(estimate + 1);
    const answer = await postJson(`${url}/v1/chat/completions`, prompt, { authorization: `Bearer ${TEST_KEY}` });
    assert.equal(answer.status, 200, answer.text);
  });

  it('answers a priced prompt that spells a special token (<|endoftext|>) as text, not with a 500', async () => {
    const { url } = await withWallet(1_000);
    const spelled = { ...prompt, messages: [{ role: 'user', content: 'Repeat <|endoftext|> and <|im_start|> back to me.' }] };
    const answer = await postJson(`${url}/v1/chat/completions`, spelled, { authorization: `Bearer ${TEST_KEY}` });
    assert.equal(answer.status, 200, answer.text);
  });

  it('refuses with 402 wallet_empty, charging nothing, a prompt whose text starts with "data:" that the wallet does not cover', async () => {
    // Text such as a pasted SSE log is prompt the provider bills, not a data URL: it used to be estimated at 0 tokens.
    const content = `data: ${'hello '.repeat(40)}`;
    const log = { ...prompt, messages: [{ role: 'user', content }] };
    // Every string of the request in o200k, plus 3 tokens of framing per message (as for any other text).
    const logEstimate = countTokens(`user\n${content}\n`) + 3;
    const { url, gate } = await withWallet(logEstimate - 1);
    const calls = openai.requests.length;
    const answer = await postJson(`${url}/v1/chat/completions`, log, { authorization: `Bearer ${TEST_KEY}` });
    assert.equal(answer.status, 402, answer.text);
    assert.equal(answer.body.error.code, 'wallet_empty');
    assert.equal(openai.requests.length, calls, 'the provider was not called');
    assert.equal((await gate.admin.usage('acme')).wallet, logEstimate - 1);
  });

  it('reserves nothing for a base64 image data URL (billed by the provider per image)', async () => {
    const image = { ...prompt, messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${'iVBORw0KGgoA'.repeat(200)}` } }] }] };
    const { url } = await withWallet(estimateInputTokens({ ...prompt, messages: [{ role: 'user', content: [{ type: 'image_url', image_url: {} }] }] }) + 1);
    const answer = await postJson(`${url}/v1/chat/completions`, image, { authorization: `Bearer ${TEST_KEY}` });
    assert.equal(answer.status, 200, answer.text);
  });

  it('refuses with 402 wallet_empty, charging nothing, a request whose wallet does not cover the estimate', async () => {
    const { url, gate } = await withWallet(estimate - 1);
    const calls = openai.requests.length;
    const answer = await postJson(`${url}/v1/chat/completions`, prompt, { authorization: `Bearer ${TEST_KEY}` });
    assert.equal(answer.status, 402);
    assert.equal(answer.body.error.code, 'wallet_empty');
    assert.equal(openai.requests.length, calls, 'the provider was not called');
    assert.equal((await gate.admin.usage('acme')).wallet, estimate - 1);
  });
});
