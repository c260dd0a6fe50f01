// Issue 16: CPU per point select of Tollgate's SQL endpoint and of the node:http + libsql server, which a loaded
// 2-core machine distorts far less than req/s (the pattern of cpu-per-request.ts): N selects per front in
// interleaved rounds, the server process's utime + stime read from /proc (all its threads, the SQL worker
// included; and its main thread alone), medians; the first round warms up and is not counted. FRONTS names the
// servers (test/bench/servers/*.ts), libsql's first: the others are compared with it.
// `N=20000 ROUNDS=5 RATE=2000 node --conditions=tollgate-source --import tsx test/bench/sql-cpu-per-select.ts`
// (after `npx tsc -b packages/middleware`; SOURCE=1 runs Tollgate from its TypeScript source instead of dist/).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { cpuMicros, forkServer, type BenchProcess } from './bench-process.js';

const N = Number(process.env.N ?? 20_000);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 32);
/** The fixed offered rate (requests/s, all connections together) of the latency rounds; 0 skips them. */
const RATE = Number(process.env.RATE ?? 2_000);
const RATE_SECONDS = Number(process.env.RATE_SECONDS ?? 4);
const flags = process.env.SOURCE === '1' ? ['--conditions=tollgate-source'] : [];
const names = (process.env.FRONTS ?? 'libsql-server,sql-server').split(',');
/** What each server is called in the table, and whether it checks a key. */
const known: Record<string, [string, boolean]> = { 'libsql-server': ['node:http + libsql (no auth)', false], 'sql-server': ['Tollgate (auth on)', true] };
const select = JSON.stringify({ query: 'SELECT id, name FROM items WHERE id = 42' });
const auth = { authorization: 'Bearer tg-bench-key-0001-0123456789abcdef' };

/** Runs the comparison and returns it as Markdown. */
export async function sqlCpuPerSelect(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'sql-cpu-per-select-'));
  const fronts: [string, BenchProcess, Record<string, string>][] = [];
  try {
    for (const name of names) {
      const [label, authOn] = known[name] ?? [name, true];
      fronts.push([label, await forkServer(name, { BENCH_DISK_FILE: join(dir, `${name}.sqlite`) }, flags), authOn ? auth : {}]);
    }
    const perRequest = new Map<string, number[]>();
    const mainPerRequest = new Map<string, number[]>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, front, headers] of fronts) {
        const before = cpuMicros(front.child.pid!);
        const mainBefore = cpuMicros(front.child.pid!, true);
        const result = await autocannon({ url: `${front.url}/api/sql/query`, method: 'POST', connections: CONNECTIONS, amount: N, headers: { 'content-type': 'application/json', ...headers }, body: select });
        const micros = (cpuMicros(front.child.pid!) - before) / N;
        const mainMicros = (cpuMicros(front.child.pid!, true) - mainBefore) / N;
        if (result.non2xx > 0 || result.errors > 0) throw new Error(`${name}: ${result.non2xx} non-2xx, ${result.errors} errors`);
        if (round === 0) continue;
        perRequest.set(name, [...(perRequest.get(name) ?? []), micros]);
        mainPerRequest.set(name, [...(mainPerRequest.get(name) ?? []), mainMicros]);
      }
    }
    // Latency at a fixed offered rate, below either server's capacity: what a client waits, not how much fits.
    const latency = new Map<string, string[]>();
    for (let round = 0; RATE > 0 && round < 3; round++) {
      for (const [name, front, headers] of fronts) {
        const result = await autocannon({ url: `${front.url}/api/sql/query`, method: 'POST', connections: CONNECTIONS, overallRate: RATE, duration: RATE_SECONDS, headers: { 'content-type': 'application/json', ...headers }, body: select });
        latency.set(name, [...(latency.get(name) ?? []), `${result.latency.p50} / ${result.latency.p99}`]);
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
    const [baseName] = fronts[0]!;
    const base = median(perRequest.get(baseName)!);
    return [
      `### CPU per point select (${N} requests a round, ${CONNECTIONS} connections, ${ROUNDS - 1} interleaved rounds after a warm-up; medians)`,
      '',
      `| server | CPU µs per select, all threads | vs ${baseName} | main thread alone | per round (all threads) |`,
      '|---|---:|---:|---:|---|',
      ...[...perRequest].map(([name, xs]) => `| ${name} | ${median(xs).toFixed(1)} | ${(median(xs) / base).toFixed(2)}× | ${median(mainPerRequest.get(name)!).toFixed(1)} | ${xs.map((x) => x.toFixed(1)).join(' ')} |`),
      '',
      RATE > 0 ? `Latency at ${RATE} req/s offered for ${RATE_SECONDS} s (p50 / p99 ms, 3 interleaved rounds): ${[...latency].map(([name, rounds]) => `${name} ${rounds.join(', ')}`).join('; ')}.` : '',
    ].join('\n');
  } finally {
    for (const [, front] of fronts) front.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await sqlCpuPerSelect());
  process.exit(0);
}
