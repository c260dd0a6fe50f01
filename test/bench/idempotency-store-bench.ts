// The Idempotency-Key stores alone, without HTTP (whose noise on the shared machine hides a few µs): each
// operation claims a new key and keeps a bench-sized answer, 32 at a time, in interleaved rounds; CPU of this
// process (process.cpuUsage) and of redis-server (/proc) per operation, medians of the rounds after a warm-up.
// It runs the build (`npx tsc -b packages/middleware` first), as the gateway benches do.
// `OPS=20000 ROUNDS=5 node --conditions=tollgate-source --import tsx test/bench/idempotency-store-bench.ts`.
// BASE=<dir of another checkout> runs that checkout's stores too, in the same rounds (answers in its format).
// STORES=memory (or redis) runs one kind only.
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { MemoryIdempotencyStore, type IdempotencyStore } from '../../packages/middleware/dist/idempotency/index.js';
import { RedisIdempotencyStore } from '../../packages/middleware/dist/store/redis-idempotency-store.js';
import { systemClock } from '../../packages/middleware/dist/runtime-clock.js';
import { RedisServer } from '../support/redis-server.js';

const OPS = Number(process.env.OPS ?? 20_000);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const IN_FLIGHT = 32;
const CLOCK_TICK_US = 10_000;

function redisCpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_US;
}

// What the gateway keeps for the bench's chat completion: its JSON and the headers it sends.
const body = Buffer.from(JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion', created: 1_700_000_000, model: 'gpt-4o', choices: [{ index: 0, message: { role: 'assistant', content: 'Hello! How can I help you today?' }, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 9, total_tokens: 19 } }));
const headers: [string, string][] = [
  ['content-type', 'application/json'],
  ['content-length', String(body.length)],
  ['x-request-id', 'req_123456'],
  ['x-tollgate-cost-usd', '0.000028'],
  ['x-ratelimit-limit-requests', '1000000'],
  ['x-ratelimit-remaining-requests', '999999'],
  ['x-tollgate-route', 'upstream/gpt-4o'],
];
// A JSON answer as each version keeps it: since session 17 the payload string sendJson wrote; before, its bytes.
const current = { status: 200, headers, body: body.toString() };
const previous = { status: 200, headers, body };
const kinds = (process.env.STORES ?? 'memory,redis').split(',');

interface Subject {
  name: string;
  store: IdempotencyStore;
  answer: unknown;
  redisPid?: number;
}

const redis = await RedisServer.start();
const clients: Redis[] = [];
const connect = () => {
  const client = new Redis(redis.url);
  clients.push(client);
  return client;
};
const probe = connect();
const redisPid = Number(/process_id:(\d+)/.exec(await probe.info('server'))![1]);
const bounds = { maxEntries: 10_000, maxBytes: 64 * 1_048_576 };
const subjects: Subject[] = [
  { name: 'memory', store: new MemoryIdempotencyStore(systemClock, bounds), answer: current },
  { name: 'redis', store: new RedisIdempotencyStore(connect(), 'now:', bounds), answer: current, redisPid },
];
if (process.env.BASE) {
  const base = `${process.env.BASE}/packages/middleware/dist`;
  const memory = (await import(`${base}/idempotency/index.js`)) as { MemoryIdempotencyStore: typeof MemoryIdempotencyStore };
  // A base from before the Redis bounds takes (redis, prefix, runningTtlMs?), its defaults what it ran with; a later one (redis, prefix, bounds).
  const redisStore = (await import(`${base}/store/redis-idempotency-store.js`)) as { RedisIdempotencyStore: new (redis: Redis, prefix: string, bounds?: { maxEntries: number; maxBytes: number }) => IdempotencyStore };
  const withBounds = redisStore.RedisIdempotencyStore.length >= 3;
  subjects.push({ name: 'memory (base)', store: new memory.MemoryIdempotencyStore(systemClock, bounds), answer: previous });
  subjects.push({ name: 'redis (base)', store: withBounds ? new redisStore.RedisIdempotencyStore(connect(), 'base:', bounds) : new redisStore.RedisIdempotencyStore(connect(), 'base:'), answer: previous, redisPid });
}
for (let i = subjects.length - 1; i >= 0; i--) if (!kinds.includes(subjects[i]!.name.split(' ')[0]!)) subjects.splice(i, 1);

let serial = 0;
async function claimAndKeep(subject: Subject): Promise<void> {
  const key = `bench-${++serial}`;
  const claim = await subject.store.begin('bench', key, 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0U1v');
  if (claim.state !== 'claimed') throw new Error(`${subject.name}: ${claim.state}`);
  await subject.store.complete('bench', key, claim.token, subject.answer as never);
}

const samples = new Map<string, { node: number[]; redis: number[] }>();
for (let round = 0; round <= ROUNDS; round++) {
  for (const subject of subjects) {
    const before = process.cpuUsage();
    const redisBefore = subject.redisPid ? redisCpuMicros(subject.redisPid) : 0;
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next++ < OPS) await claimAndKeep(subject);
      }),
    );
    const used = process.cpuUsage(before);
    if (round === 0) continue;
    const sample = samples.get(subject.name) ?? { node: [], redis: [] };
    sample.node.push((used.user + used.system) / OPS);
    sample.redis.push(subject.redisPid ? (redisCpuMicros(subject.redisPid) - redisBefore) / OPS : 0);
    samples.set(subject.name, sample);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
console.log('| store | Node CPU µs per claim + keep (median) | redis-server CPU µs | Node per round |\n|---|---:|---:|---|');
for (const [name, sample] of samples) console.log(`| ${name} | ${median(sample.node).toFixed(1)} | ${name.startsWith('redis') ? median(sample.redis).toFixed(1) : '–'} | ${sample.node.map((x) => x.toFixed(1)).join(' ')} |`);
for (const client of clients) client.disconnect();
await redis.close();
process.exit(0);
