// Issue 20, the young generation: what a point select (a writer's and a sql:read key's) and an insert leave for
// V8's scavenger on the postgres kind, beside the bare node:http + pg server. Each server starts cold under the load
// (a cold start is when V8 decides to pretenure an allocation site), then serves N measured requests with
// `--trace-gc-nvp`; the report gives per scavenge the bytes promoted to the old generation and the pause, and the
// pause per request.
// Part of `npm run bench`; alone: `N=30000 node --import tsx test/bench/sql-postgres-gc.ts` (Tollgate from its
// build: `npx tsc -b packages/middleware` first). BENCH_BASE=<another built checkout> adds its Tollgate's rows.
// A pretenured per-request literal shows as promotion far above the bare server's (README "PostgreSQL": 357 KB
// per scavenge before the exchange's answer stopped being one, 4 KB after, as the bare server).
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { seedBenchTables } from './sql-postgres-bench.js';
import { PostgresServer } from '../support/postgres-server.js';
import { forkServer, type BenchProcess } from './bench-process.js';
import { CONNECTIONS } from './interleaved-load.js';

const N = Number(process.env.N ?? 30_000);
const WARM_UP = 20_000;
const WRITER = 'tg-bench-key-0001-0123456789abcdef';
const READER = 'tg-bench-read-0001-0123456789abcdef';

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
    const tollgates: [string, Record<string, string>][] = [['Tollgate', env]];
    if (process.env.BENCH_BASE) tollgates.push(['Tollgate (base)', { ...env, BENCH_TOLLGATE_ENTRY: join(process.env.BENCH_BASE, 'packages/middleware/dist/index.js') }]);
    const select = { query: 'SELECT id, name FROM items WHERE id = ?', params: [42] };
    const insert = { query: "INSERT INTO log VALUES (now(), 'written')" };
    // Each row a cold server: pretenuring is decided while the first requests are slow.
    const scenarios = [
      { name: 'bare node:http + pg, point select', server: 'pg-bare-server', env, url: '', key: WRITER, body: { query: 'SELECT id, name FROM items WHERE id = $1', params: [42] } },
      ...tollgates.map(([name, tollgateEnv]) => ({ name: `${name}, point select`, server: 'pg-tollgate-server', env: tollgateEnv, url: '/api/sql/query', key: WRITER, body: select })),
      ...tollgates.map(([name, tollgateEnv]) => ({ name: `${name}, point select, sql:read`, server: 'pg-tollgate-server', env: tollgateEnv, url: '/api/sql/query', key: READER, body: select })),
      { name: 'bare node:http + pg, insert', server: 'pg-bare-server', env, url: '', key: WRITER, body: insert },
      ...tollgates.map(([name, tollgateEnv]) => ({ name: `${name}, insert`, server: 'pg-tollgate-server', env: tollgateEnv, url: '/api/sql/query', key: WRITER, body: insert })),
    ];
    const rows: string[] = [];
    for (const { name, server, env: serverEnv, url, key, body } of scenarios) {
      const front = await forkServer(server, serverEnv, ['--trace-gc-nvp'], 'pipe');
      started.push(front);
      const lines: string[] = [];
      createInterface({ input: front.child.stdout! }).on('line', (line) => lines.push(line));
      const load = (amount: number) =>
        autocannon({ url: `${front.url}${url}`, method: 'POST', connections: CONNECTIONS, amount, headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify(body) });
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
      `### Scavenges on PostgreSQL (${N} requests after ${WARM_UP} from a cold start, a fresh server per row; ${CONNECTIONS} connections)`,
      '',
      '| server, request | scavenges | KB promoted per scavenge | pause ms per scavenge | pause µs per request |',
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
