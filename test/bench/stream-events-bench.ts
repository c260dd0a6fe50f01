// The per-event cost of the stream layers (decode → check → translate → encode) on recorded provider streams:
// events per second through codecFor(protocol, kind).stream, no network. Run before and after a change to
// the stream path: `node --conditions=tollgate-source --import tsx test/bench/stream-events-bench.ts`.
import type { ClientProtocol, RouteTarget } from '../../packages/middleware/src/providers/index.js';
import { codecFor } from '../../packages/middleware/src/providers/index.js';
import type { ProviderConfig } from '../../packages/middleware/src/config/index.js';
import { anthropicMessagesEvent, openaiChatChunk } from '../../packages/middleware/src/providers/upstream-events.js';
import type { EventShape } from '../../packages/middleware/src/providers/decode-event.js';
import { recordedChunks } from '../support/recorded.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const STREAMS = Number(process.env.BENCH_STREAMS ?? 4000);

const cases: { name: string; protocol: ClientProtocol; kind: ProviderConfig['kind']; fixture: string }[] = [
  { name: 'chat relay (OpenAI chat stream → chat client)', protocol: 'chat', kind: 'openai', fixture: 'openai-chat-text' },
  { name: 'messages relay (Anthropic stream → messages client)', protocol: 'messages', kind: 'anthropic', fixture: 'anthropic-text' },
  { name: 'chat → messages (OpenAI chat stream → messages client)', protocol: 'messages', kind: 'openai', fixture: 'openai-chat-text' },
  { name: 'anthropic → chat (Anthropic stream → chat client)', protocol: 'chat', kind: 'anthropic', fixture: 'anthropic-text' },
  { name: 'gemini → chat (Gemini stream → chat client)', protocol: 'chat', kind: 'gemini', fixture: 'google-text' },
];

function eventsPerSecond(protocol: ClientProtocol, kind: ProviderConfig['kind'], lines: string[]): number {
  const provider: ProviderConfig = { kind, headers: {}, timeoutMs: 1000, maxRetries: 0, retryBaseMs: 0 };
  const target: RouteTarget = { provider, model: 'm', alias: 'alias', defaultMaxTokens: 1024 };
  const codec = codecFor(protocol, provider);
  const body = protocol === 'messages' ? { model: 'alias', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }], stream: true } : { model: 'alias', messages: [{ role: 'user', content: 'hi' }], stream: true };
  const events = lines.map((data) => ({ event: (JSON.parse(data) as { type?: string }).type, data }));
  const start = performance.now();
  for (let i = 0; i < STREAMS; i++) {
    const translator = codec.stream(target, body, () => 3);
    for (const event of events) translator.push(event);
    translator.end();
    translator.usage();
  }
  return (STREAMS * events.length) / ((performance.now() - start) / 1000);
}

const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

for (const c of cases) {
  const lines = recordedChunks(c.fixture).filter((line) => line !== '[DONE]');
  eventsPerSecond(c.protocol, c.kind, lines); // warm-up
  const rounds = Array.from({ length: ROUNDS }, () => eventsPerSecond(c.protocol, c.kind, lines));
  console.log(`${c.name}: ${Math.round(median(rounds)).toLocaleString('en')} events/s (median of ${ROUNDS}; ${lines.length} events × ${STREAMS} streams per round)`);
}

// The decode layer alone, interleaved in one process so machine load hits all three alike: JSON.parse only,
// JSON.parse + the hand-written guard (what runs), JSON.parse + zod safeParse of the same schema (rejected).
function decodeRate(lines: string[], check: (value: unknown) => boolean): number {
  const start = performance.now();
  for (let i = 0; i < STREAMS; i++) for (const line of lines) if (!check(JSON.parse(line))) throw new Error('rejected');
  return (STREAMS * lines.length) / ((performance.now() - start) / 1000);
}
for (const [fixture, shape] of [['openai-chat-text', openaiChatChunk], ['anthropic-text', anthropicMessagesEvent]] as [string, EventShape<unknown>][]) {
  const lines = recordedChunks(fixture).filter((line) => line !== '[DONE]');
  const variants: [string, (value: unknown) => boolean][] = [['JSON.parse only', () => true], ['+ guard', shape.is], ['+ zod safeParse', (value) => shape.schema.safeParse(value).success]];
  const rates = variants.map((): number[] => []);
  for (let round = 0; round <= ROUNDS; round++) variants.forEach(([, check], i) => { const rate = decodeRate(lines, check); if (round > 0) rates[i]!.push(rate); });
  const base = median(rates[0]!);
  console.log(`decode ${fixture}: ` + variants.map(([name], i) => `${name} ${Math.round(median(rates[i]!)).toLocaleString('en')}/s (${((median(rates[i]!) / base) * 100).toFixed(1)}%)`).join(', '));
}
