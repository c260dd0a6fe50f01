// What an Idempotency-Key costs per request in the memory store, without the gateway around it (whose ~100–200 µs
// and their swings under contention hide a few µs): servers/idempotent-json.ts answers one JSON body through
// runIdempotently, and Tollgate's CPU from /proc (cpuMicros, as idempotency-cpu.ts) is read per scenario in
// interleaved rounds: no key (the control), a new key per request, one repeated key (replays). The key's cost is
// keyed − control, paired per round. BASE=<dir of another checkout> runs its idempotency/ and http/ in the same rounds.
// `N=20000 ROUNDS=6 BASE=/tmp/s17-beyond-base node --conditions=tollgate-source --import tsx test/bench/idempotency-layer-cpu.ts`
import { execFileSync } from 'node:child_process';
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

// SERVER_FLAGS: node flags for both servers (e.g. --max-semi-space-size=64), to test a GC explanation.
const flags = process.env.SERVER_FLAGS?.split(' ').filter(Boolean) ?? [];
const fronts: [string, BenchProcess][] = [['this checkout', await forkServer('idempotent-json', {}, flags)]];
if (process.env.BASE) fronts.push(['base', await forkServer('idempotent-json', { CHECKOUT: process.env.BASE }, flags)]);
// ALT_FLAGS: this checkout once more, with other node flags (e.g. a larger young generation), in the same rounds.
if (process.env.ALT_FLAGS) fronts.push([`this checkout ${process.env.ALT_FLAGS}`, await forkServer('idempotent-json', {}, [...flags, ...process.env.ALT_FLAGS.split(' ')])]);
// PIN=1: every server on core 1, this load generator on core 0 — on a 2-core machine the least noisy split (the
// servers' GC helper threads then share their core).
if (process.env.PIN) {
  execFileSync('taskset', ['-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
  for (const [, server] of fronts) execFileSync('taskset', ['-a', '-p', '-c', '1', String(server.child.pid)], { stdio: 'ignore' });
}
const samples = new Map<string, number[]>();
/** Per scenario, summed over the measured rounds: main-thread CPU, and the server's GCs (servers/idempotent-json.ts). */
const gcTotals = new Map<string, Record<string, number>>();
type GcStats = Record<string, number>;
const gcOf = (server: BenchProcess) =>
  new Promise<GcStats>((resolve) => {
    server.child.once('message', (message) => resolve(message as GcStats));
    server.child.send('gc');
  });
for (let round = 0; round <= ROUNDS; round++) {
  for (const [front, server] of fronts) {
    for (const [name, perRequest] of scenarios) {
      const requests: autocannon.Request[] = [{ method: 'POST', setupRequest: (req: autocannon.Request) => ({ ...req, headers: { ...headers, ...perRequest() } }) }];
      const before = cpuMicros(server.child.pid!);
      const mainBefore = cpuMicros(server.child.pid!, true);
      const gcBefore = await gcOf(server);
      const result = await autocannon({ url: `${server.url}/`, method: 'POST', connections: 32, amount: N, headers, body, requests });
      const micros = (cpuMicros(server.child.pid!) - before) / N;
      const mainMicros = (cpuMicros(server.child.pid!, true) - mainBefore) / N;
      const gcAfter = await gcOf(server);
      // The replayed key's first run answers 409 to the repeats sent while it runs: a few, once.
      if (result.errors > 0 || result.non2xx > N / 100) throw new Error(`${front} ${name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
      if (round === 0) continue;
      const key = `${front}\t${name}`;
      samples.set(key, [...(samples.get(key) ?? []), micros]);
      const totals = gcTotals.get(key) ?? { requests: 0, mainMicros: 0 };
      totals.requests! += N;
      totals.mainMicros! += mainMicros * N;
      for (const field in gcAfter) if (field !== 'heapUsed') totals[field] = (totals[field] ?? 0) + gcAfter[field]! - gcBefore[field]!;
      totals.heapUsed = gcAfter.heapUsed!;
      gcTotals.set(key, totals);
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
console.log('\n| checkout | scenario | main-thread CPU µs/request | scavenges per 1,000 requests | scavenge µs/request | mark-compacts | mark-compact µs/request | incremental-marking µs/request | heap used at the end, MB |\n|---|---|---:|---:|---:|---:|---:|---:|---:|');
for (const [key, t] of gcTotals) {
  const per = (field: string, scale: number) => ((t[field]! * scale) / t.requests!).toFixed(2);
  console.log(`| ${key.replace('\t', ' | ')} | ${per('mainMicros', 1)} | ${per('scavenges', 1000)} | ${per('scavengeMs', 1000)} | ${t.majors} | ${per('majorMs', 1000)} | ${per('incrementalMs', 1000)} | ${(t.heapUsed! / 1e6).toFixed(1)} |`);
}
for (const [, server] of fronts) server.stop();
process.exit(0);
