// The prompt estimate's cost per request, with the token count cache (tokenize/token-count-cache.ts) and
// without it (the tokenizer over the whole prompt, as before session 17): `node --conditions=tollgate-source
// --import tsx test/bench/prompt-estimate-bench.ts`. Bodies are parsed anew per request, as a server sees them.
import { countTokens, estimateInputTokens } from '../../packages/middleware/src/tokenize/index.js';

const bodies: Record<string, unknown> = {
  'the CPU bench\'s prompt': { model: 'bench-model', messages: [{ role: 'user', content: 'Say hello.' }] },
  'a system prompt and a short conversation': {
    model: 'm',
    messages: [
      { role: 'system', content: 'You are a helpful assistant. '.repeat(20) },
      { role: 'user', content: 'What is the capital of France? Answer briefly, please.' },
      { role: 'assistant', content: 'Paris.' },
      { role: 'user', content: 'And of Spain?' },
    ],
  },
};

/** The estimate as it was: every string and its newline, tokenized as one text. */
function uncached(body: unknown): number {
  const { messages } = body as { messages: { role: string; content: string }[] };
  return countTokens(messages.map((message) => `${message.role}\n${message.content}\n`).join('')) + 3 * messages.length;
}

const ROUNDS = 3;
const CALLS = 50_000;
for (const [name, body] of Object.entries(bodies)) {
  const copies = Array.from({ length: 1_000 }, () => JSON.parse(JSON.stringify(body)) as unknown);
  const timings: Record<string, number[]> = { uncached: [], cached: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [label, estimate] of [['uncached', uncached], ['cached', estimateInputTokens]] as const) {
      const started = process.hrtime.bigint();
      for (let i = 0; i < CALLS; i++) estimate(copies[i % copies.length]);
      timings[label]!.push(Number(process.hrtime.bigint() - started) / CALLS);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  console.log(`${name}: uncached ${median(timings.uncached!).toFixed(0)} ns, cached ${median(timings.cached!).toFixed(0)} ns per estimate (${estimateInputTokens(body)} tokens)`);
}
