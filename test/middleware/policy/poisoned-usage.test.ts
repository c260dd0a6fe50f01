import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { countTokens, estimateInputTokens } from '../../../packages/middleware/src/tokenize/index.js';
import { startFakeAnthropic, startFakeGemini, startFakeOpenAI } from '../../fakes/index.js';
import type { FakeServer } from '../../fakes/fake-server.js';
import { startGateway, type RunningGateway } from '../../support/gateway.js';
import { RedisServer } from '../../support/redis-server.js';
import type { ConfigInput } from '@tollgate/middleware';

// Issue 15 item 2: what a faulty provider may put in a token count, as the JSON text it sends.
const POISON: Record<string, string> = {
  'an overflowing number (1e400)': '1e400',
  'a word ("lots")': '"lots"',
  'an object ({})': '{}',
  'an absurd number (1e300)': '1e300',
  'a negative number (-5)': '-5',
  'a numeric string ("5", Anthropic-style)': '"5"',
  'an unsafe integer (2^60)': '1152921504606846976',
};

const KEY = 'tg-poisoned-usage-key-0123456789abcdef';
const PROMPT = 'one two three';
const REPLY = 'Echo: one two three';
const chatBody = { model: 'gpt', messages: [{ role: 'user', content: PROMPT }] };
const messagesBody = { model: 'claude', max_tokens: 64, messages: [{ role: 'user', content: PROMPT }] };

/** Which usage field each family's fake poisons, and how a request reaches it. */
const families = [
  { name: 'OpenAI chat', fake: 'openai', field: 'prompt_tokens', path: '/v1/chat/completions', body: chatBody, stream: false },
  { name: 'OpenAI chat stream', fake: 'openai', field: 'completion_tokens', path: '/v1/chat/completions', body: chatBody, stream: true },
  { name: 'Anthropic messages', fake: 'anthropic', field: 'input_tokens', path: '/v1/messages', body: messagesBody, stream: false },
  { name: 'Anthropic messages stream', fake: 'anthropic', field: 'output_tokens', path: '/v1/messages', body: messagesBody, stream: true },
  { name: 'Anthropic through chat', fake: 'anthropic', field: 'input_tokens', path: '/v1/chat/completions', body: { ...chatBody, model: 'claude' }, stream: false },
  { name: 'Gemini through chat', fake: 'gemini', field: 'candidatesTokenCount', path: '/v1/chat/completions', body: { ...chatBody, model: 'gemini' }, stream: false },
  // The cached-prompt counts (i17-billing) pass the same boundary: a bad one makes the whole report no report.
  { name: 'OpenAI chat cached tokens', fake: 'openai', field: 'prompt_tokens_details', path: '/v1/chat/completions', body: chatBody, stream: false },
  { name: 'OpenAI chat stream cached tokens', fake: 'openai', field: 'prompt_tokens_details', path: '/v1/chat/completions', body: chatBody, stream: true },
  { name: 'Anthropic messages cache reads', fake: 'anthropic', field: 'cache_read_input_tokens', path: '/v1/messages', body: messagesBody, stream: false },
  { name: 'Anthropic messages stream cache writes', fake: 'anthropic', field: 'cache_creation_input_tokens', path: '/v1/messages', body: messagesBody, stream: true },
  { name: 'Gemini through chat cached tokens', fake: 'gemini', field: 'cachedContentTokenCount', path: '/v1/chat/completions', body: { ...chatBody, model: 'gemini' }, stream: false },
] as const;

/** OpenAI's cached count sits inside `prompt_tokens_details`; the other fields are the count itself. */
function poisonedValue(field: string, raw: string): string {
  return field === 'prompt_tokens_details' ? `{"cached_tokens":${raw}}` : raw;
}

for (const storeKind of ['memory', 'redis'] as const) {
  describe(`poisoned provider usage (issue 15 item 2, ${storeKind} store)`, function () {
    this.timeout(60_000);
    let fakes: Record<'openai' | 'anthropic' | 'gemini', FakeServer>;
    let redis: RedisServer | undefined;
    let gateway: RunningGateway;
    const logged: string[] = [];

    before(async () => {
      fakes = { openai: await startFakeOpenAI(), anthropic: await startFakeAnthropic(), gemini: await startFakeGemini() };
      if (storeKind === 'redis') redis = await RedisServer.start();
    });
    after(async () => {
      for (const fake of Object.values(fakes)) await fake.close();
      await redis?.close();
    });

    let org = 0;
    beforeEach(async () => {
      const name = `org${++org}`;
      const config: ConfigInput = {
        defaultCatalog: false,
        keys: [{ key: KEY, org: name }],
        organizations: { [name]: { wallet: 10 } },
        providers: {
          openai: { kind: 'openai', baseUrl: fakes.openai.baseUrl, apiKey: 'sk-fake-openai', retryBaseMs: 1 },
          anthropic: { kind: 'anthropic', baseUrl: fakes.anthropic.baseUrl, apiKey: 'sk-fake-anthropic', retryBaseMs: 1 },
          gemini: { kind: 'gemini', baseUrl: fakes.gemini.baseUrl, apiKey: 'fake-gemini-key', retryBaseMs: 1 },
        },
        models: {
          gpt: { routes: [{ provider: 'openai', model: 'gpt-4o' }], price: { input: 2.5, output: 10 } },
          claude: { routes: [{ provider: 'anthropic', model: 'claude-haiku-4-5' }], price: { input: 1, output: 5 } },
          gemini: { routes: [{ provider: 'gemini', model: 'gemini-2.5-flash' }], price: { input: 0.3, output: 2.5 } },
        },
        store: redis ? { kind: 'redis', url: redis.url, prefix: `poison${org}:` } : { kind: 'memory' },
      };
      logged.length = 0;
      gateway = await startGateway(config, { logger: { info() {}, error: (message) => void logged.push(message) } });
    });
    afterEach(async () => {
      for (const fake of Object.values(fakes)) fake.poisonUsage(undefined);
      await gateway.close();
    });

    for (const family of families) {
      for (const [what, raw] of Object.entries(POISON)) {
        it(`${family.name}: ${what} in ${family.field} answers 200 and bills the tokenizer's count`, async () => {
          fakes[family.fake].poisonUsage({ [family.field]: poisonedValue(family.field, raw) });
          const body = { ...family.body, stream: family.stream };
          const response = await fetch(gateway.url + family.path, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, body: JSON.stringify(body) });
          const text = await response.text();
          assert.equal(response.status, 200, text);
          assert.ok(text.includes('three'), 'the answer reached the client');
          if (!family.stream) assert.doesNotThrow(() => JSON.parse(text));

          const usage = await gateway.gate.admin.usage(`org${org}`);
          assert.equal(usage.inFlight, 0, 'the concurrency slot is back');
          assert.equal(usage.requests, 1, 'billed once');
          assert.equal(usage.inputTokens, estimateInputTokens(family.body), 'input counted with the tokenizer');
          assert.equal(usage.outputTokens, countTokens(REPLY), 'output counted with the tokenizer');
          assert.equal(usage.cachedInputTokens, 0, 'no cache reads billed from a rejected report');
          assert.equal(usage.cacheWriteTokens, 0, 'no cache writes billed from a rejected report');
          assert.ok(Number.isFinite(usage.wallet) && usage.wallet < 10 && usage.wallet > 9.99, `wallet ${usage.wallet}`);
          assert.ok(logged.some((line) => line.includes('not token counts')), `logged: ${logged.join(' | ')}`);
        });
      }
    }

    it('a report of 5 tokens as the string "5" is never billed as 500 (no string concatenation)', async () => {
      fakes.anthropic.poisonUsage({ input_tokens: '"5"' });
      const response = await fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, body: JSON.stringify({ ...chatBody, model: 'claude' }) });
      const body = (await response.json()) as { usage: Record<string, unknown> };
      assert.equal(response.status, 200);
      assert.notEqual(body.usage.prompt_tokens, '500');
      assert.notEqual((await gateway.gate.admin.usage(`org${org}`)).inputTokens, 500);
    });

    if (storeKind === 'redis') {
      it('the settle script refuses non-integer counts and keeps the admission\'s lease, so nothing counts as settled', async () => {
        // The store's own guard, beneath the codec boundary: a settlement that cannot apply is not done.
        // Removing the admission's lease is what marks a settlement done (a repeat then finds none).
        const { settleScript } = await import('../../../packages/middleware/src/store/redis-scripts.js');
        const client = new Redis(redis!.url);
        try {
          const keys = ['{t}:bal', '{t}:win', '{t}:slots', '{t}:ledger', '{t}:lapsed', '{t}:reservations', '{t}:key:k:state', '{t}:key:k:win', '{t}:key:k:slots', '{t}:key:k:reservations'];
          await client.hset('{t}:bal', 'wallet', 1000);
          await client.zadd('{t}:slots', Date.now() + 60_000, 'x');
          const argv = (input: string) => ['x', input, '3', 'wallet', '-1', '2500000', '10000000', '1', '', 'o', 'k', 'a', '', '0', ''];
          for (const bad of ['1e400', 'lots', '-5', '1.5', 'inf']) {
            await assert.rejects(client.eval(settleScript, keys.length, ...keys, ...argv(bad)));
            assert.notEqual(await client.zscore('{t}:slots', 'x'), null, `the lease is still held after ${bad}`);
          }
          // The cache counts appended by i17-billing (ARGV 16, 17) are checked by the same rule.
          for (const bad of ['1e400', 'lots', '-5', '1.5']) {
            await assert.rejects(client.eval(settleScript, keys.length, ...keys, ...argv('3'), bad, '0', '250000', '2500000'));
            await assert.rejects(client.eval(settleScript, keys.length, ...keys, ...argv('3'), '0', bad, '250000', '2500000'));
            assert.notEqual(await client.zscore('{t}:slots', 'x'), null, `the lease is still held after a cache count ${bad}`);
          }
          assert.equal(await client.hget('{t}:bal', 'wallet'), '1000');
          // A huge but integral charge is capped, not an error half-way through the script. Fifteen ARGVs, as
          // a settlement spooled before cached tokens were billed: still taken (no cache counts, input rate).
          const cost = await client.eval(settleScript, keys.length, ...keys, ...argv('9007199254740991'));
          assert.equal(cost, 9007199254740991);
          assert.equal(await client.hget('{t}:bal', 'wallet'), String(1000 - 9007199254740991));
          assert.equal(await client.zscore('{t}:slots', 'x'), null, 'settled: the lease is gone');
        } finally {
          client.disconnect();
        }
      });
    }
  });
}

describe('a settlement handed counts that are not counts (the stores\' own guard, beneath the codec boundary)', () => {
  for (const storeKind of ['memory', 'redis'] as const) {
    it(`${storeKind}: settles without throwing, frees the slot and leaves the wallet a finite number`, async () => {
      const { parseConfig } = await import('../../../packages/middleware/src/config/index.js');
      const { KeyRing } = await import('../../../packages/middleware/src/auth/index.js');
      const { createPolicy } = await import('../../../packages/middleware/src/store/index.js');
      const redis = storeKind === 'redis' ? await RedisServer.start() : undefined;
      const { config } = parseConfig({ keys: [{ key: KEY, org: 'acme' }], organizations: { acme: { wallet: 10 } }, store: redis ? { kind: 'redis', url: redis.url } : { kind: 'memory' } }, {});
      const keys = KeyRing.fromConfig(config.keys);
      const { policy, admin } = await createPolicy({ config, keys, clock: { now: () => Date.now() }, baseDir: process.cwd(), logger: { error() {} } });
      try {
        const principal = { keyId: keys.records()[0]!.keyId, org: 'acme', scopes: ['models' as const] };
        for (const usage of [{ inputTokens: Infinity, outputTokens: 3 }, { inputTokens: Number.NaN, outputTokens: -5 }, { inputTokens: 1e300, outputTokens: 1e300 }]) {
          const admission = await policy.admit({ principal, alias: 'gpt', billing: 'wallet', price: { input: 2.5, output: 10 }, estimatedInputTokens: 0, maxOutputTokens: 64 });
          await admission.settle(usage);
        }
        const report = await admin.usage('acme');
        assert.equal(report.inFlight, 0);
        assert.ok(Number.isFinite(report.wallet) && report.wallet <= 10 && report.wallet > 9.99, `wallet ${report.wallet}`);
      } finally {
        await policy.close();
        await redis?.close();
      }
    });
  }
});

describe('a poisoned count from Anthropic\'s count_tokens (issue 15 item 2)', () => {
  for (const raw of ['1e400', '"5"', '-5', '{}']) {
    it(`input_tokens ${raw} is not relayed: the tokenizer's count answers instead`, async () => {
      const anthropic = await startFakeAnthropic();
      const gateway = await startGateway({
        defaultCatalog: false,
        keys: [{ key: KEY, org: 'acme' }],
        organizations: { acme: {} },
        providers: { anthropic: { kind: 'anthropic', baseUrl: anthropic.baseUrl, apiKey: 'sk-fake-anthropic' } },
        models: { claude: { routes: [{ provider: 'anthropic', model: 'claude-haiku-4-5' }] } },
      });
      try {
        anthropic.answerRawNext({ status: 200, contentType: 'application/json', body: `{"input_tokens":${raw}}` });
        const body = { model: 'claude', messages: [{ role: 'user', content: PROMPT }] };
        const response = await fetch(`${gateway.url}/v1/messages/count_tokens`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': KEY }, body: JSON.stringify(body) });
        assert.equal(response.status, 200);
        assert.deepEqual(await response.json(), { input_tokens: estimateInputTokens({ messages: body.messages }) });
      } finally {
        await gateway.close();
        await anthropic.close();
      }
    });
  }
});
