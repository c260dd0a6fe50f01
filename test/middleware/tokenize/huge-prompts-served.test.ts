import assert from 'node:assert/strict';
import type { ConfigInput } from '@tollgate/middleware';
import { estimateInputTokens } from '../../../packages/middleware/src/tokenize/index.js';
import { startGateway, type RunningGateway } from '../../support/gateway.js';
import { longestStallDuring } from '../../support/event-loop-stall.js';
import { chatCompletion, sendJson, startScripted } from '../../support/scripted-provider.js';

const KEY = 'tg-huge-prompt-key-0123456789abcdef';

/** A seeded generator, so a failure names a prompt that can be replayed. */
function mulberry32(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `words` words of `wordLength` random characters from [from, from + span), each followed by `separator`. Words of a
 * few Ki characters rather than one 2 MiB word: the same work for today's code (a word is sliced either way), while
 * the code before the fix is stopped for seconds, not for hours, so that the test fails on it instead of hanging.
 */
function randomWords(seed: number, words: number, wordLength: number, from: number, span: number, separator: string): string {
  const random = mulberry32(seed);
  const parts: string[] = [];
  for (let w = 0; w < words; w++) {
    const codes = new Array<number>(wordLength);
    for (let i = 0; i < wordLength; i++) codes[i] = from + Math.floor(random() * span);
    parts.push(String.fromCharCode(...codes), separator);
  }
  return parts.join('');
}

/** 2 MiB of random lowercase letters, in words of 4 Ki letters. */
const RANDOM_LETTERS = randomWords(1, 512, 4096 - 1, 0x61, 26, ' ');
/** 2 MiB (UTF-8) of random CJK characters, in sentences of 1 Ki characters ending with '。'. */
const RANDOM_CJK = randomWords(2, 683, 1023, 0x4e00, 20_000, '。');

/** Under the ~10 s the old code stopped for; wide, as this machine's timing drifts by a third. */
const MAX_STALL_MS = 500;

describe('a huge prompt does not stop the other requests while it is counted', function () {
  this.timeout(60_000);
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  /** A gateway with a priced model on a loopback provider answering `usage` (undefined: none). */
  async function stack(usage: unknown, price = { input: 1, output: 1 }, wallet = 100) {
    const provider = await startScripted((_req, res) => sendJson(res, 200, chatCompletion('ok', usage)));
    closers.push(() => provider.close());
    const config: ConfigInput = {
      defaultCatalog: false,
      keys: [{ key: KEY, org: 'acme' }],
      organizations: { acme: { wallet } },
      providers: { p: { kind: 'openai', baseUrl: provider.baseUrl, apiKey: 'sk-x', retryBaseMs: 1 } },
      models: { m: { routes: [{ provider: 'p', model: 'gpt-4o' }], price } },
    };
    const gateway: RunningGateway = await startGateway(config);
    closers.push(() => gateway.close());
    // The first count loads the tokenizer's ranks: not part of what is measured.
    assert.equal((await post(gateway, '/v1/chat/completions', chatBody('hello'))).status, 200);
    return { gateway, provider };
  }

  const chatBody = (content: string) => ({ model: 'm', max_tokens: 16, messages: [{ role: 'user', content }] });

  async function post(gateway: RunningGateway, path: string, body: object) {
    const response = await fetch(`${gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, body: JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as any };
  }

  it("a chat prompt of 128 KiB of 'x' (one word) is answered without stopping the event loop", async () => {
    const { gateway } = await stack({ prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 });
    const { result, stallMs } = await longestStallDuring(() => post(gateway, '/v1/chat/completions', chatBody('x'.repeat(128 * 1024))));
    assert.equal(result.status, 200);
    assert.ok(stallMs < MAX_STALL_MS, `the event loop stopped for ${stallMs} ms`);
  });

  it('a chat prompt of 2 MiB of random lowercase letters is answered without stopping the event loop', async () => {
    const { gateway } = await stack({ prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 });
    const { result, stallMs } = await longestStallDuring(() => post(gateway, '/v1/chat/completions', chatBody(RANDOM_LETTERS)));
    assert.equal(result.status, 200);
    assert.ok(stallMs < MAX_STALL_MS, `the event loop stopped for ${stallMs} ms`);
  });

  it('/v1/messages/count_tokens of 2 MiB of random CJK characters answers without stopping the event loop', async () => {
    const { gateway } = await stack({ prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 });
    const body = { model: 'm', messages: [{ role: 'user', content: RANDOM_CJK }] };
    const { result, stallMs } = await longestStallDuring(() => post(gateway, '/v1/messages/count_tokens', body));
    assert.equal(result.status, 200);
    assert.equal(result.body.input_tokens, estimateInputTokens(body));
    assert.ok(stallMs < MAX_STALL_MS, `the event loop stopped for ${stallMs} ms`);
  });

  it("bills a huge prompt by the provider's reported usage", async () => {
    const { gateway } = await stack({ prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 }, { input: 1_000_000, output: 1_000_000 }, 10_000_000);
    const before = await gateway.gate.admin.usage('acme');
    assert.equal((await post(gateway, '/v1/chat/completions', chatBody(RANDOM_LETTERS))).status, 200);
    const after = await gateway.gate.admin.usage('acme');
    // 1 USD per token: the provider's 3 + 1 tokens.
    assert.equal(after.inputTokens - before.inputTokens, 3);
    assert.equal(after.outputTokens - before.outputTokens, 1);
    assert.equal(Math.round((before.wallet - after.wallet) * 1e6), 4e6);
  });

  it("bills a huge prompt by the tokenizer's count when the provider reports no usage", async () => {
    const { gateway } = await stack(undefined, { input: 1, output: 1 }, 100);
    const body = chatBody(RANDOM_LETTERS);
    const before = await gateway.gate.admin.usage('acme');
    assert.equal((await post(gateway, '/v1/chat/completions', body)).status, 200);
    const after = await gateway.gate.admin.usage('acme');
    // The same count as a small body's (counted at once), and close to the letters' ~1 token per 2 of them.
    const expected = estimateInputTokens(body);
    assert.ok(expected > RANDOM_LETTERS.length / 3, `${expected} tokens`);
    assert.equal(after.inputTokens - before.inputTokens, expected);
    assert.equal(after.outputTokens - before.outputTokens, 1);
  });

  it('refuses a huge prompt whose reservation the wallet cannot cover, without calling the provider', async () => {
    // 1 USD per prompt token, 1,000 USD in the wallet: ~1 M tokens cannot be reserved.
    const { gateway, provider } = await stack({ prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 }, { input: 1_000_000, output: 0 }, 1_000);
    const calls = provider.count;
    const answer = await post(gateway, '/v1/chat/completions', chatBody(RANDOM_LETTERS));
    assert.equal(answer.status, 402, JSON.stringify(answer.body));
    assert.equal(provider.count, calls);
  });
});
