import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import type { ConfigInput } from '@tollgate/middleware';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import { readLedger, type LedgerLine } from '../../../packages/middleware/src/store/index.js';
import { RedisServer } from '../../support/redis-server.js';
import { startIssue5Stack, TEST_KEY, type Issue5Stack } from '../endpoints-issue5/issue5-stack.js';

/** 2,000 one-token words: the fakes count a prompt's tokens as its words. */
const PROMPT = 'word '.repeat(2_000).trim();
const ANSWER = 'one two three';
const START_MICROS = 100_000_000;

// Prices with cache rates unlike the input rate, so a cached token billed at the wrong rate shows.
const models: ConfigInput['models'] = {
  gpt: { routes: [{ provider: 'openai', model: 'gpt-4o' }], price: { input: 2.5, output: 10, cachedInput: 1.25 } },
  claude: { routes: [{ provider: 'anthropic', model: 'claude-sonnet-4-5' }], price: { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 } },
  gemini: { routes: [{ provider: 'google', model: 'gemini-2.5-pro' }], price: { input: 1.25, output: 10, cachedInput: 0.125 } },
  'gpt-old-price': { routes: [{ provider: 'openai', model: 'gpt-4o' }], price: { input: 2.5, output: 10 } },
  'gpt-included': { routes: [{ provider: 'openai', model: 'gpt-4o' }], billing: 'included', price: { input: 2.5, output: 10, cachedInput: 1.25 } },
};
// The allowance matters only to the included model; the others bill the wallet.
const organizations: ConfigInput['organizations'] = { acme: { wallet: 100, paymentMethod: true, included: { tokens: 1_000, period: 'month' } } };

// Expected costs, in pico-dollars per token × tokens, rounded up to the micro-dollar.
/** OpenAI: 500 plain × 2.5 + 1,500 cached × 1.25 + 3 out × 10 (USD/M) = 1,250 + 1,875 + 30 µ$. */
const OPENAI_MICROS = 3_155;
/** Anthropic: 300 plain × 3 + 1,200 read × 0.3 + 500 written × 3.75 + 3 out × 15 = 900 + 360 + 1,875 + 45 µ$. */
const ANTHROPIC_MICROS = 3_180;
/** Gemini: 500 plain × 1.25 + 1,500 cached × 0.125 + 3 out × 10 = 625 + 187.5 + 30 = 842.5 → 843 µ$ (rounded up). */
const GEMINI_MICROS = 843;

const stores = ['memory', 'redis'] as const;

for (const storeKind of stores) {
  describe(`cached prompt tokens billed at their own rates (${storeKind} store)`, () => {
    let redis: RedisServer | undefined;
    let dir: string;
    let stack: Issue5Stack;
    let openai: OpenAI;
    let anthropic: Anthropic;
    let prefix: string;
    let run = 0;

    before(async () => {
      if (storeKind === 'redis') redis = await RedisServer.start();
    });
    after(async () => {
      await redis?.close();
    });
    beforeEach(async () => {
      dir = mkdtempSync(join(tmpdir(), 'tollgate-cache-billing-'));
      prefix = `cache${++run}:`;
      // ledger: false keeps the Redis ledger stream untrimmed, to be read here.
      const store: ConfigInput['store'] = storeKind === 'memory' ? { kind: 'memory', file: join(dir, 'state.jsonl') } : { kind: 'redis', url: redis!.url, prefix, ledger: false };
      stack = await startIssue5Stack({ models, store, organizations });
      openai = new OpenAI({ baseURL: `${stack.gateway.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
      anthropic = new Anthropic({ baseURL: stack.gateway.url, apiKey: TEST_KEY, maxRetries: 0 });
    });
    afterEach(async () => {
      await stack.close();
      rmSync(dir, { recursive: true, force: true });
    });

    async function assertCharged(micros: number, cachedInputTokens: number, cacheWriteTokens: number): Promise<void> {
      const usage = await stack.gateway.gate.admin.usage('acme');
      assert.equal(usage.wallet, (START_MICROS - micros) / 1_000_000);
      assert.equal(usage.costUsd, micros / 1_000_000);
      assert.equal(usage.inputTokens, 2_000);
      assert.equal(usage.outputTokens, 3);
      assert.equal(usage.cachedInputTokens, cachedInputTokens);
      assert.equal(usage.cacheWriteTokens, cacheWriteTokens);
      const line = await lastLedgerLine();
      assert.deepEqual([line.in, line.out, line.cached, line.written, line.cost], [2_000, 3, cachedInputTokens, cacheWriteTokens, micros]);
    }

    async function lastLedgerLine(): Promise<Record<string, number>> {
      if (storeKind === 'memory') {
        // The memory store's settlements live in its ledger files beside the store file (store/store-files.ts).
        const lines: LedgerLine[] = [];
        for await (const line of readLedger(join(dir, 'state.jsonl.ledger'), {})) lines.push(line);
        const settle = lines.at(-1)!;
        return { in: settle.in, out: settle.out, cached: settle.cached ?? 0, written: settle.written ?? 0, cost: settle.cost };
      }
      const client = new Redis(redis!.url);
      try {
        const entries = await client.xrange(`${prefix}{acme}:ledger`, '-', '+');
        const fields = entries.map(([, values]) => Object.fromEntries(values.flatMap((value, index) => (index % 2 === 0 ? [[value, values[index + 1]]] : [])))).filter((entry) => entry.t === 'settle').at(-1)!;
        return { in: Number(fields.in), out: Number(fields.out), cached: Number(fields.cached), written: Number(fields.written), cost: Number(fields.cost) };
      } finally {
        client.disconnect();
      }
    }

    it('bills OpenAI chat prompt_tokens_details.cached_tokens at the cachedInput rate (openai SDK)', async () => {
      stack.openai.reply({ text: ANSWER, cachedTokens: 1_500 });
      const completion = await openai.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: PROMPT }] });
      assert.equal(completion.usage?.prompt_tokens_details?.cached_tokens, 1_500);
      await assertCharged(OPENAI_MICROS, 1_500, 0);
    });

    it('bills OpenAI Responses input_tokens_details.cached_tokens at the cachedInput rate, streamed (openai SDK)', async () => {
      stack.openai.reply({ text: ANSWER, cachedTokens: 1_500 });
      const stream = await openai.responses.create({ model: 'gpt', input: PROMPT, stream: true });
      for await (const event of stream) void event;
      await assertCharged(OPENAI_MICROS, 1_500, 0);
    });

    it('bills Anthropic cache reads at 0.1× and cache writes at 1.25× on a native route, with cache_control passed through (anthropic SDK)', async () => {
      stack.anthropic.reply({ text: ANSWER, cachedTokens: 1_200, cacheWriteTokens: 500 });
      const message = await anthropic.messages.create({
        model: 'claude',
        max_tokens: 64,
        system: [{ type: 'text', text: 'be brief', cache_control: { type: 'ephemeral' } }],
        messages: [{ role: 'user', content: [{ type: 'text', text: PROMPT.replace(/^word word /, ''), cache_control: { type: 'ephemeral', ttl: '5m' } }] }],
        tools: [{ name: 'lookup', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral' } }],
      });
      assert.equal(message.usage.cache_read_input_tokens, 1_200);
      assert.equal(message.usage.cache_creation_input_tokens, 500);
      const sent = stack.anthropic.requests.at(-1)!.body as { system: { cache_control?: unknown }[]; messages: { content: { cache_control?: unknown }[] }[]; tools: { cache_control?: unknown }[] };
      assert.deepEqual(sent.system[0]!.cache_control, { type: 'ephemeral' });
      assert.deepEqual(sent.messages[0]!.content[0]!.cache_control, { type: 'ephemeral', ttl: '5m' });
      assert.deepEqual(sent.tools[0]!.cache_control, { type: 'ephemeral' });
      await assertCharged(ANTHROPIC_MICROS, 1_200, 500);
    });

    it('bills Anthropic cache tokens from a native stream’s message_start (anthropic SDK)', async () => {
      stack.anthropic.reply({ text: ANSWER, cachedTokens: 1_200, cacheWriteTokens: 500 });
      const stream = anthropic.messages.stream({ model: 'claude', max_tokens: 64, messages: [{ role: 'user', content: PROMPT }] });
      const final = await stream.finalMessage();
      assert.equal(final.usage.cache_read_input_tokens, 1_200);
      await assertCharged(ANTHROPIC_MICROS, 1_200, 500);
    });

    it('bills Anthropic cache tokens on a chat client’s translated stream, and shows the reads as cached_tokens (openai SDK)', async () => {
      stack.anthropic.reply({ text: ANSWER, cachedTokens: 1_200, cacheWriteTokens: 500 });
      const stream = await openai.chat.completions.create({ model: 'claude', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: PROMPT }] });
      let usage: OpenAI.CompletionUsage | undefined | null;
      for await (const chunk of stream) usage = chunk.usage ?? usage;
      assert.equal(usage?.prompt_tokens, 2_000);
      assert.equal(usage?.prompt_tokens_details?.cached_tokens, 1_200);
      await assertCharged(ANTHROPIC_MICROS, 1_200, 500);
    });

    it('bills Anthropic cache tokens for a Responses client and shows the reads in input_tokens_details, JSON and streamed (openai SDK)', async () => {
      stack.anthropic.reply({ text: ANSWER, cachedTokens: 1_200, cacheWriteTokens: 500 });
      const response = await openai.responses.create({ model: 'claude', input: PROMPT });
      assert.equal(response.usage?.input_tokens, 2_000);
      assert.equal(response.usage?.input_tokens_details.cached_tokens, 1_200);
      await assertCharged(ANTHROPIC_MICROS, 1_200, 500);
      const stream = await openai.responses.create({ model: 'claude', input: PROMPT, stream: true });
      let cached: number | undefined;
      for await (const event of stream) if (event.type === 'response.completed') cached = event.response.usage?.input_tokens_details.cached_tokens;
      assert.equal(cached, 1_200);
    });

    it('bills Gemini cachedContentTokenCount at the cachedInput rate, rounded up to the micro-dollar (openai SDK, streamed)', async () => {
      stack.gemini.reply({ text: ANSWER, cachedTokens: 1_500 });
      const stream = await openai.chat.completions.create({ model: 'gemini', stream: true, messages: [{ role: 'user', content: PROMPT }] });
      for await (const chunk of stream) void chunk;
      await assertCharged(GEMINI_MICROS, 1_500, 0);
    });

    it('bills Gemini cached tokens on a messages client’s translated JSON answer (raw HTTP)', async () => {
      stack.gemini.reply({ text: ANSWER, cachedTokens: 1_500 });
      const response = await fetch(`${stack.gateway.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gemini', max_tokens: 64, messages: [{ role: 'user', content: PROMPT }] }),
      });
      assert.equal(response.status, 200);
      await response.text();
      await assertCharged(GEMINI_MICROS, 1_500, 0);
    });

    it('bills what overflows an included allowance from the cheapest prompt tokens up, the same in both stores', async () => {
      stack.openai.reply({ text: ANSWER, cachedTokens: 1_500 });
      await openai.chat.completions.create({ model: 'gpt-included', messages: [{ role: 'user', content: PROMPT }] });
      // The 1,000 included tokens cover the 500 plain prompt tokens, then 500 cached ones; the wallet pays
      // the other 1,000 cached tokens and the output: 1,000 × 1.25 + 3 × 10 = 1,250 + 30 micro-dollars.
      await assertCharged(1_280, 1_500, 0);
      assert.equal((await stack.gateway.gate.admin.usage('acme')).includedRemaining, 0);
    });

    it('bills cached tokens at the input rate when the price names no cache rates (old configs bill the same)', async () => {
      stack.openai.reply({ text: ANSWER, cachedTokens: 1_500 });
      await openai.chat.completions.create({ model: 'gpt-old-price', messages: [{ role: 'user', content: PROMPT }] });
      // 2,000 × 2.5 + 3 × 10 = 5,000 + 30 µ$.
      await assertCharged(5_030, 1_500, 0);
    });
  });
}
