// Issue 20, per request rather than per second (a loaded 2-core machine distorts req/s far more than CPU time):
// the point select and the durable insert of sql-postgres-bench.ts, through Tollgate's postgres kind and through
// the bare node:http + pg server, each N requests per round in interleaved rounds (the first warms up and is not
// counted), reporting medians of
//   - the server process's CPU µs per request (utime + stime from /proc, all its threads),
//   - the PostgreSQL cluster's CPU µs per request (every process of the cluster: postmaster and its children),
//   - the Query/Sync messages and the round trips per request, counted on the wire by a relay (pg-wire-counter.ts).
// The relay re-segments PostgreSQL's replies, so per-segment costs on a direct connection (README "PostgreSQL",
// sessions 21 and 23) are not seen here; sql-postgres-bench.ts and perf see them.
// `N=5000 ROUNDS=4 node --conditions=tollgate-source --import tsx test/bench/sql-postgres-cpu.ts` (Tollgate runs
// from its TypeScript source, so no build is needed to try a change). BENCH_BASE=<another checkout> adds that
// checkout's Tollgate as a third front in the same rounds (before/after under the same contention), e.g.
// `git -C /work/main archive HEAD | tar -x -C /tmp/base` with its node_modules linked. BENCH_DIST=1 runs both
// Tollgate fronts from their builds (packages/middleware/dist: `npx tsc -b packages/middleware` first), as the
// throughput benchmark does: tsx's transform adds a __name() call per function it creates (closures included).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { seedBenchTables } from './sql-postgres-bench.js';
import { PostgresServer } from '../support/postgres-server.js';
import { CLOCK_TICK_US, cpuMicros, forkServer, procStatFields, type BenchProcess } from './bench-process.js';
import { CONNECTIONS, median } from './interleaved-load.js';
import { PgWireCounter } from '../support/pg-wire-counter.js';

const N = Number(process.env.N ?? 5_000);
const ROUNDS = Number(process.env.ROUNDS ?? 4);

/**
 * CPU of the postmaster, of each of its live children (backends, checkpointer, WAL writer…) and of the children
 * that exited (autovacuum workers: the postmaster's cutime + cstime, fields 16 and 17), in µs.
 */
function clusterMicros(postmaster: number): number {
  const own = procStatFields(postmaster)!;
  let total = cpuMicros(postmaster) + (Number(own[13]) + Number(own[14])) * CLOCK_TICK_US;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    const fields = procStatFields(pid);
    if (fields && Number(fields[1]) === postmaster) total += (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_US;
  }
  return total;
}

const postgres = await PostgresServer.start({ fsync: true });
const postmaster = Number(readFileSync(join(postgres.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
const counter = await PgWireCounter.start(postgres.port);
const started: BenchProcess[] = [];
try {
  await seedBenchTables(postgres.url);
  const env = { BENCH_PG_URL: `postgres://postgres@127.0.0.1:${counter.port}/postgres` };
  const bare = await forkServer('pg-bare-server', env);
  const dist = process.env.BENCH_DIST === '1';
  const entry = (root: string) => join(root, dist ? 'packages/middleware/dist/index.js' : 'packages/middleware/src/index.ts');
  const flags = dist ? [] : ['--conditions=tollgate-source'];
  const tollgate = await forkServer('pg-tollgate-server', { ...env, BENCH_TOLLGATE_ENTRY: entry(fileURLToPath(new URL('../..', import.meta.url))) }, flags);
  started.push(bare, tollgate);
  const fronts = [{ name: 'Tollgate', server: tollgate }];
  if (process.env.BENCH_BASE) {
    const base = await forkServer('pg-tollgate-server', { ...env, BENCH_TOLLGATE_ENTRY: entry(process.env.BENCH_BASE) }, flags);
    started.push(base);
    fronts.push({ name: 'base', server: base });
  }
  const auth = { authorization: 'Bearer tg-bench-key-0001-0123456789abcdef' };
  const readAuth = { authorization: 'Bearer tg-bench-read-0001-0123456789abcdef' };
  const insertText = "INSERT INTO log VALUES (now(), 'written')";
  const select = { query: 'SELECT id, name FROM items WHERE id = ?', params: [42] };
  const scenarios = [
    { name: 'bare, point select', server: bare, url: bare.url, headers: {}, body: { query: 'SELECT id, name FROM items WHERE id = $1', params: [42] } },
    ...fronts.map((front) => ({ name: `${front.name}, point select`, server: front.server, url: `${front.server.url}/api/sql/query`, headers: auth, body: select })),
    // A sql:read key: its read-only transaction (BEGIN READ ONLY … COMMIT), which the bare server has no counterpart of.
    ...fronts.map((front) => ({ name: `${front.name}, point select, sql:read`, server: front.server, url: `${front.server.url}/api/sql/query`, headers: readAuth, body: select })),
    { name: 'bare, insert', server: bare, url: bare.url, headers: {}, body: { query: insertText } },
    ...fronts.map((front) => ({ name: `${front.name}, insert`, server: front.server, url: `${front.server.url}/api/sql/query`, headers: auth, body: { query: insertText } })),
  ];
  const samples = scenarios.map(() => ({ server: [] as number[], postgres: [] as number[], syncs: [] as number[], roundTrips: [] as number[] }));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, scenario] of scenarios.entries()) {
      const pid = scenario.server.child.pid!;
      const before = { server: cpuMicros(pid), postgres: clusterMicros(postmaster), ...counter.counts };
      const result = await autocannon({ url: scenario.url, method: 'POST', connections: CONNECTIONS, amount: N, headers: { 'content-type': 'application/json', ...scenario.headers }, body: JSON.stringify(scenario.body) });
      // The reset after a request is not awaited by its answer: let the last ones land before reading the counters.
      await new Promise((resolve) => setTimeout(resolve, 200));
      if (result.non2xx > 0 || result.errors > 0) throw new Error(`${scenario.name}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
      if (round === 0) continue;
      const sample = samples[i]!;
      sample.server.push((cpuMicros(pid) - before.server) / N);
      sample.postgres.push((clusterMicros(postmaster) - before.postgres) / N);
      sample.syncs.push((counter.counts.syncs - before.syncs) / N);
      sample.roundTrips.push((counter.counts.roundTrips - before.roundTrips) / N);
    }
  }
  console.log(`### PostgreSQL kind, per request (${CONNECTIONS} connections, pool 16, N=${N}, ${ROUNDS - 1} counted rounds; medians)\n`);
  console.log('| scenario | server CPU µs | PostgreSQL CPU µs | Query+Sync msgs | round trips | server µs per round |\n|---|---:|---:|---:|---:|---|');
  for (const [i, scenario] of scenarios.entries()) {
    const s = samples[i]!;
    console.log(`| ${scenario.name} | ${median(s.server).toFixed(0)} | ${median(s.postgres).toFixed(0)} | ${median(s.syncs).toFixed(2)} | ${median(s.roundTrips).toFixed(2)} | ${s.server.map((x) => x.toFixed(0)).join(' ')} |`);
  }
} finally {
  for (const p of started) p.stop();
  await counter.close();
  await postgres.close();
}
process.exit(0);
