// CPU per request of each gateway front, which a loaded 2-core machine distorts far less than req/s: drives
// N requests through each front in interleaved rounds and reads the server process's utime + stime from /proc.
// `N=30000 ROUNDS=5 FRONTS=bare-proxy,json-proxy,tollgate-server node --conditions=tollgate-source --import tsx
// test/bench/cpu-per-request.ts` (the first round warms up and is not counted). SOURCE=1 runs Tollgate from its
// TypeScript source instead of the build, for trying a change without `npm run build`. A front written
// `tollgate-base-server:<dist/index.js>` runs the Tollgate server on that build (a change's before and after, or
// several steps of it, in one interleaved run; /tmp/s17-cpu-base's build without the path).
import autocannon from 'autocannon';
import { cpuMicros, forkServer, type BenchProcess } from './bench-process.js';

const N = Number(process.env.N ?? 30_000);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const names = (process.env.FRONTS ?? 'bare-proxy,json-proxy,tollgate-server').split(',');
const flags = process.env.SOURCE === '1' ? ['--conditions=tollgate-source'] : [];
const upstream = await forkServer('constant-upstream');
const fronts: [string, BenchProcess][] = [];
for (const name of names) {
  const [server, dist] = name.split(':') as [string, string | undefined];
  fronts.push([name, await forkServer(server, dist ? { UPSTREAM_URL: `${upstream.url}/v1`, BASE_DIST: dist } : { UPSTREAM_URL: `${upstream.url}/v1` }, flags)]);
}
// STREAM=1: streamed chat completions (three events each) instead; a front may be a server file's absolute path
// (a base checkout's tollgate-server.ts, to compare before and after in one run).
const messages = [{ role: 'user', content: 'Say hello.' }];
const body = JSON.stringify(process.env.STREAM === '1' ? { model: 'bench-model', stream: true, messages } : { model: 'bench-model', messages });
const headers = { 'content-type': 'application/json', authorization: 'Bearer tg-bench-key-0001-0123456789abcdef' };

const perRequest = new Map<string, number[]>();
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, front] of fronts) {
    const before = cpuMicros(front.child.pid!);
    const result = await autocannon({ url: `${front.url}/v1/chat/completions`, method: 'POST', connections: 32, amount: N, headers, body });
    const micros = (cpuMicros(front.child.pid!) - before) / N;
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    if (round > 0) perRequest.set(name, [...(perRequest.get(name) ?? []), micros]);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const base = median(perRequest.get(names[0]!)!);
console.log(`| front | CPU µs per request (median) | vs ${names[0]} | per round |\n|---|---:|---:|---|`);
const reference = perRequest.get(names[0]!)!;
for (const [name, xs] of perRequest) console.log(`| ${name} | ${median(xs).toFixed(1)} | ${(median(xs) / base).toFixed(2)}× | ${xs.map((x) => x.toFixed(1)).join(' ')} |`);
// The machine's load drifts between rounds; a ratio taken within each round, then medianed, drifts less.
console.log(`\nper-round ratio to ${names[0]}, medianed: ${[...perRequest].map(([name, xs]) => `${name} ${median(xs.map((x, round) => x / reference[round]!)).toFixed(3)}`).join(', ')}`);
for (const [, front] of fronts) front.stop();
upstream.stop();
