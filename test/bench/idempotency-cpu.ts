// What an Idempotency-Key costs per request, in CPU (which a loaded 2-core machine distorts far less than req/s):
// N requests per scenario in interleaved rounds, reading utime + stime of the Tollgate process (and of
// redis-server for the Redis store) from /proc, as cpu-per-request.ts does. Each store runs three scenarios with
// the same load generator (autocannon's setupRequest making a header per request): a header Tollgate ignores
// (the control), a new Idempotency-Key per request, and one repeated key (replays). The key's cost is the
// keyed row minus the control row.
// `N=20000 ROUNDS=5 STORES=memory,redis node --conditions=tollgate-source --import tsx test/bench/idempotency-cpu.ts`
// (the first round warms up and is not counted). SOURCE=1 runs Tollgate from its TypeScript source instead of
// the build. PIN=1 pins the processes (below). BASE=<dir of another built checkout> adds that checkout's server for each store, in the same rounds
// (an A/B of a change; the other checkout's tollgate-server.ts must read STORE).
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { RedisServer } from '../support/redis-server.js';
import { cpuMicros, forkServer, type BenchProcess } from './bench-process.js';

const N = Number(process.env.N ?? 20_000);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const stores = (process.env.STORES ?? 'memory,redis').split(',');
const flags = process.env.SOURCE === '1' ? ['--conditions=tollgate-source'] : [];
const body = JSON.stringify({ model: 'bench-model', messages: [{ role: 'user', content: 'Say hello.' }] });
const headers = { 'content-type': 'application/json', authorization: 'Bearer tg-bench-key-0001-0123456789abcdef' };

interface Front {
  store: string;
  gateway: BenchProcess;
  redisPid: number | undefined;
}
const scenarios: [string, (() => Record<string, string>) | undefined, Record<string, string>][] = [
  ['control (an ignored header per request)', () => ({ 'x-bench-nonce': randomUUID() }), {}],
  ['a new Idempotency-Key per request', () => ({ 'idempotency-key': randomUUID() }), {}],
  ['a repeated key (replays)', () => ({ 'x-bench-nonce': randomUUID() }), { 'idempotency-key': 'bench-replayed' }],
];

const upstream = await forkServer('constant-upstream');
const redis = stores.includes('redis') ? await RedisServer.start() : undefined;
const fronts: Front[] = [];
// forkServer names a server by its path under ./servers/, without .ts.
const serversDir = fileURLToPath(new URL('./servers/', import.meta.url));
const checkouts: [string, string][] = [['', 'tollgate-server'], ...(process.env.BASE ? [[' (base)', relative(serversDir, `${process.env.BASE}/test/bench/servers/tollgate-server`)] as [string, string]] : [])];
for (const [store, [label, server]] of stores.flatMap((store) => checkouts.map((checkout) => [store, checkout] as const))) {
  const storeConfig = store === 'redis' ? { kind: 'redis', url: redis!.url, prefix: `bench${label ? 'base' : ''}:` } : { kind: 'memory' };
  const gateway = await forkServer(server, { UPSTREAM_URL: `${upstream.url}/v1`, STORE: JSON.stringify(storeConfig) }, flags);
  fronts.push({ store: `${store}${label}`, gateway, redisPid: store === 'redis' ? await redisPidOf(redis!) : undefined });
}
// PIN=1: the gateways on core 1; this load generator, the upstream and redis-server on core 0 — on 2 shared
// cores far less noisy (the gateways' GC helper threads then share their core).
if (process.env.PIN) {
  const pin = (core: string, pid: number) => execFileSync('taskset', ['-a', '-p', '-c', core, String(pid)], { stdio: 'ignore' });
  for (const pid of [process.pid, upstream.child.pid!, ...(redis ? [await redisPidOf(redis)] : [])]) pin('0', pid);
  for (const front of fronts) pin('1', front.gateway.child.pid!);
}
/**
 * The replayed key's run, before each round's replays: while it runs, repeats would answer 409, and the
 * key-per-request rows (more than the memory store's 10,000 entries a round) have evicted it since the last round.
 */
const primeReplayedKey = (front: Front) => fetch(`${front.gateway.url}/v1/chat/completions`, { method: 'POST', headers: { ...headers, 'idempotency-key': 'bench-replayed' }, body }).then((r) => r.text());

const samples = new Map<string, { gateway: number[]; redis: number[]; refused: number }>();
for (let round = 0; round < ROUNDS; round++) {
  for (const front of fronts) {
    for (const [name, perRequest, fixed] of scenarios) {
      if (fixed['idempotency-key']) await primeReplayedKey(front);
      const all = { ...headers, ...fixed };
      const requests: autocannon.Request[] = [{ method: 'POST', setupRequest: (req: autocannon.Request) => ({ ...req, headers: { ...all, ...perRequest!() } }) }];
      const gatewayBefore = cpuMicros(front.gateway.child.pid!);
      const redisBefore = front.redisPid ? cpuMicros(front.redisPid) : 0;
      const result = await autocannon({ url: `${front.gateway.url}/v1/chat/completions`, method: 'POST', connections: 32, amount: N, headers: all, body, requests });
      const gatewayMicros = (cpuMicros(front.gateway.child.pid!) - gatewayBefore) / N;
      const redisMicros = front.redisPid ? (cpuMicros(front.redisPid) - redisBefore) / N : 0;
      // Under heavy contention Redis may not answer within the store's timeout (503, retryable): counted, and
      // fatal only past 1% (the figures would then measure refusals).
      if (result.errors > 0 || result.non2xx > N / 100) throw new Error(`${front.store} ${name}: ${result.non2xx} non-2xx, ${result.errors} errors, ${JSON.stringify(result.statusCodeStats)}`);
      if (round === 0) continue;
      const key = `${front.store}\t${name}`;
      const sample = samples.get(key) ?? { gateway: [], redis: [], refused: 0 };
      sample.refused += result.non2xx;
      sample.gateway.push(gatewayMicros);
      sample.redis.push(redisMicros);
      samples.set(key, sample);
    }
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
console.log(`| store | scenario | Tollgate CPU µs/request (median) | (least) | redis-server CPU µs/request | Tollgate per round | non-2xx |\n|---|---|---:|---:|---:|---|---:|`);
for (const [key, sample] of samples) {
  const [store, name] = key.split('\t');
  console.log(`| ${store} | ${name} | ${median(sample.gateway).toFixed(1)} | ${Math.min(...sample.gateway).toFixed(1)} | ${store!.startsWith('redis') ? median(sample.redis).toFixed(1) : '–'} | ${sample.gateway.map((x) => x.toFixed(1)).join(' ')} | ${sample.refused} |`);
}
// The key's own cost, paired within each round (the keyed run follows its control run by seconds): drift
// between rounds cancels out.
console.log('\n| store | key cost: keyed − control, Tollgate CPU µs/request (median of rounds) | redis-server | per round |\n|---|---:|---:|---|');
for (const front of fronts) {
  const control = samples.get(`${front.store}\t${scenarios[0]![0]}`)!;
  const keyed = samples.get(`${front.store}\t${scenarios[1]![0]}`)!;
  const diffs = keyed.gateway.map((x, i) => x - control.gateway[i]!);
  const redisDiffs = keyed.redis.map((x, i) => x - control.redis[i]!);
  console.log(`| ${front.store} | ${median(diffs).toFixed(1)} | ${front.redisPid ? median(redisDiffs).toFixed(1) : '–'} | ${diffs.map((x) => x.toFixed(1)).join(' ')} |`);
}
for (const front of fronts) front.gateway.stop();
upstream.stop();
await redis?.close();
process.exit(0);

/** redis-server's pid, from its own INFO (RedisServer keeps its child process private). */
async function redisPidOf(server: RedisServer): Promise<number> {
  const client = new Redis(server.url);
  try {
    const info = await client.info('server');
    return Number(/process_id:(\d+)/.exec(info)![1]);
  } finally {
    client.disconnect();
  }
}
