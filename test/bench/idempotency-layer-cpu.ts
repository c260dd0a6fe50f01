// What an Idempotency-Key costs per request in the memory store, without the gateway around it (whose ~100–200 µs
// and their swings under contention hide a few µs): servers/idempotent-json.ts answers one JSON body through
// runIdempotently, and Tollgate's CPU from /proc (cpuMicros, as idempotency-cpu.ts) is read per scenario in
// interleaved rounds: no key (the control), a new key per request, one repeated key (replays). The key's cost is
// keyed − control, paired per round. BASE=<dir of another checkout> runs its idempotency/ and http/ in the same rounds.
// `N=20000 ROUNDS=6 BASE=/tmp/s17-beyond-base node --conditions=tollgate-source --import tsx test/bench/idempotency-layer-cpu.ts`
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import { cpuMicros, forkServer, type BenchProcess } from './bench-process.js';

const N = Number(process.env.N ?? 20_000);
const ROUNDS = Number(process.env.ROUNDS ?? 6);
const body = JSON.stringify({ model: 'bench-model', messages: [{ role: 'user', content: 'Say hello.' }] });
const headers = { 'content-type': 'application/json' };
const scenarios: [string, () => Record<string, string>][] = [
  ['control (no key; an ignored header per request)', () => ({ 'x-bench-nonce': randomUUID() })],
  ['a new Idempotency-Key per request', () => ({ 'idempotency-key': randomUUID() })],
  ['a repeated key (replays)', () => ({ 'x-bench-nonce': randomUUID(), 'idempotency-key': 'bench-replayed' })],
];

const fronts: [string, BenchProcess][] = [['this checkout', await forkServer('idempotent-json')]];
if (process.env.BASE) fronts.push(['base', await forkServer('idempotent-json', { CHECKOUT: process.env.BASE })]);
const samples = new Map<string, number[]>();
for (let round = 0; round <= ROUNDS; round++) {
  for (const [front, server] of fronts) {
    for (const [name, perRequest] of scenarios) {
      const requests: autocannon.Request[] = [{ method: 'POST', setupRequest: (req: autocannon.Request) => ({ ...req, headers: { ...headers, ...perRequest() } }) }];
      const before = cpuMicros(server.child.pid!);
      const result = await autocannon({ url: `${server.url}/`, method: 'POST', connections: 32, amount: N, headers, body, requests });
      const micros = (cpuMicros(server.child.pid!) - before) / N;
      // The replayed key's first run answers 409 to the repeats sent while it runs: a few, once.
      if (result.errors > 0 || result.non2xx > N / 100) throw new Error(`${front} ${name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
      if (round === 0) continue;
      const key = `${front}\t${name}`;
      samples.set(key, [...(samples.get(key) ?? []), micros]);
    }
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
console.log('| checkout | scenario | server CPU µs/request (median) | per round |\n|---|---|---:|---|');
for (const [key, xs] of samples) console.log(`| ${key.replace('\t', ' | ')} | ${median(xs).toFixed(1)} | ${xs.map((x) => x.toFixed(1)).join(' ')} |`);
console.log('\n| checkout | key cost: keyed − control, µs/request (median of rounds) | per round |\n|---|---:|---|');
for (const [front] of fronts) {
  const control = samples.get(`${front}\t${scenarios[0]![0]}`)!;
  const diffs = samples.get(`${front}\t${scenarios[1]![0]}`)!.map((x, i) => x - control[i]!);
  console.log(`| ${front} | ${median(diffs).toFixed(1)} | ${diffs.map((x) => x.toFixed(1)).join(' ')} |`);
}
for (const [, server] of fronts) server.stop();
process.exit(0);
