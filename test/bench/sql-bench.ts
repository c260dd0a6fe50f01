// Issue 2 benchmark: point selects through POST /api/sql/query against a bare node:http server answering a
// constant JSON body — same load generator, same run — and write throughput with durability on.
import autocannon from 'autocannon';
import { forkServer, type BenchProcess } from './bench-process.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = 32;

async function load(url: string, body: string): Promise<{ rps: number; p50: number; p99: number }> {
  const result = await autocannon({ url, method: 'POST', connections: CONNECTIONS, duration: DURATION, headers: { 'content-type': 'application/json', authorization: 'Bearer tg-bench-key-0001' }, body });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

/** Runs the SQL benchmark and returns its report as Markdown. */
export async function sqlBench(): Promise<string> {
  const started: BenchProcess[] = [];
  try {
    const bare = await forkServer('constant-json');
    const tollgate = await forkServer('sql-server');
    started.push(bare, tollgate);
    const select = JSON.stringify({ query: 'SELECT id, name FROM items WHERE id = 42' });
    const insert = JSON.stringify({ query: "INSERT INTO log VALUES (unixepoch(), 'written')", context: { db: 'disk' } });
    const baseline = await load(bare.url, select);
    const reads = await load(`${tollgate.url}/api/sql/query`, select);
    const writes = await load(`${tollgate.url}/api/sql/query`, insert);
    return [
      `### SQL endpoint (${CONNECTIONS} connections, ${DURATION} s each, one run)`,
      '',
      '| scenario | req/s | p50 ms | p99 ms |',
      '|---|---:|---:|---:|',
      `| bare node:http, constant JSON | ${Math.round(baseline.rps)} | ${baseline.p50} | ${baseline.p99} |`,
      `| Tollgate point select (auth on) | ${Math.round(reads.rps)} | ${reads.p50} | ${reads.p99} |`,
      `| Tollgate durable insert (file, fsync, group commit) | ${Math.round(writes.rps)} | ${writes.p50} | ${writes.p99} |`,
      '',
      `Point-select ratio Tollgate / bare: ${(reads.rps / baseline.rps).toFixed(2)} (target ≥ 0.85).`,
    ].join('\n');
  } finally {
    for (const p of started) p.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await sqlBench());
  process.exit(0);
}
