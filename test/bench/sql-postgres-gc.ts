// Issue 20, the young generation: what a point select leaves for V8's scavenger on the postgres kind, beside the
// bare node:http + pg server. Each server starts cold under the load (a cold start is when V8 decides to pretenure
// an allocation site), then serves N measured requests with `--trace-gc-nvp`; the report gives per scavenge the
// bytes promoted to the old generation and the pause, and the pause per request.
// Part of `npm run bench`; alone: `N=30000 node --import tsx test/bench/sql-postgres-gc.ts` (Tollgate from its
// build: `npx tsc -b packages/middleware` first). BENCH_BASE=<another built checkout> adds its Tollgate as a third server.
// A pretenured per-request literal shows as promotion far above the bare server's (README "PostgreSQL": 357 KB
// per scavenge before the exchange's answer stopped being one, 4 KB after, as the bare server).
import { join } from 'node:path';
import autocannon from 'autocannon';
import { seedBenchTables } from './sql-postgres-bench.js';
import { PostgresServer } from '../support/postgres-server.js';
import { forkServer, type BenchProcess } from './bench-process.js';

const N = Number(process.env.N ?? 30_000);
const WARM_UP = 20_000;

interface Scavenges {
  count: number;
  promotedKb: number;
  pauseMs: number;
}

/** The scavenges (`gc=s`) among `--trace-gc-nvp` lines: their count, mean bytes promoted and mean pause. */
function scavengesOf(lines: string[]): Scavenges {
  const scavenges = lines.filter((line) => line.includes(' gc=s '));
  const mean = (field: string) => scavenges.reduce((sum, line) => sum + Number(new RegExp(`\\b${field}=([\\d.]+)`).exec(line)?.[1] ?? 0), 0) / Math.max(1, scavenges.length);
  return { count: scavenges.length, promotedKb: mean('promoted') / 1024, pauseMs: mean('pause') };
}

/** Runs the scavenge benchmark and returns its report as Markdown. */
export async function sqlPostgresGcBench(): Promise<string> {
  const postgres = await PostgresServer.start({ fsync: true });
  const started: BenchProcess[] = [];
  try {
    await seedBenchTables(postgres.url);
    const env = { BENCH_PG_URL: postgres.url };
    const servers = [
      { name: 'bare node:http + pg', server: 'pg-bare-server', env, url: '', query: 'SELECT id, name FROM items WHERE id = $1' },
      { name: 'Tollgate', server: 'pg-tollgate-server', env, url: '/api/sql/query', query: 'SELECT id, name FROM items WHERE id = ?' },
      ...(process.env.BENCH_BASE
        ? [{ name: 'Tollgate (base)', server: 'pg-tollgate-server', env: { ...env, BENCH_TOLLGATE_ENTRY: join(process.env.BENCH_BASE, 'packages/middleware/dist/index.js') }, url: '/api/sql/query', query: 'SELECT id, name FROM items WHERE id = ?' }]
        : []),
    ];
    const rows: string[] = [];
    for (const { name, server, env: serverEnv, url, query } of servers) {
      const front = await forkServer(server, serverEnv, ['--trace-gc-nvp'], 'pipe');
      started.push(front);
      const lines: string[] = [];
      let partial = '';
      front.child.stdout!.on('data', (chunk: Buffer) => {
        const text = partial + chunk.toString();
        const parts = text.split('\n');
        partial = parts.pop()!;
        lines.push(...parts);
      });
      const load = (amount: number) =>
        autocannon({ url: `${front.url}${url}`, method: 'POST', connections: 32, amount, headers: { 'content-type': 'application/json', authorization: 'Bearer tg-bench-key-0001-0123456789abcdef' }, body: JSON.stringify({ query, params: [42] }) });
      await load(WARM_UP);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const from = lines.length;
      const result = await load(N);
      await new Promise((resolve) => setTimeout(resolve, 200));
      if (result.non2xx > 0 || result.errors > 0) throw new Error(`${name}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
      const { count, promotedKb, pauseMs } = scavengesOf(lines.slice(from));
      rows.push(`| ${name} | ${count} | ${promotedKb.toFixed(1)} | ${pauseMs.toFixed(2)} | ${((count * pauseMs * 1000) / N).toFixed(2)} |`);
      front.stop();
    }
    return [
      `### Scavenges under the point-select load on PostgreSQL (${N} requests after ${WARM_UP} from a cold start; 32 connections)`,
      '',
      '| server | scavenges | KB promoted per scavenge | pause ms per scavenge | pause µs per request |',
      '|---|---:|---:|---:|---:|',
      ...rows,
    ].join('\n');
  } finally {
    for (const front of started) front.stop();
    await postgres.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await sqlPostgresGcBench());
  process.exit(0);
}
