// Issue 2 benchmark: point selects through POST /api/sql/query against a bare node:http server answering a
// constant JSON body — same load generator, same run — and write throughput with durability on.
import { forkServer, type BenchProcess } from './bench-process.js';
import { CONNECTIONS, interleavedLoad, ratio } from './interleaved-load.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);

/** Runs the SQL benchmark and returns its report as Markdown. */
export async function sqlBench(): Promise<string> {
  const started: BenchProcess[] = [];
  try {
    const bare = await forkServer('constant-json');
    const roundTrip = await forkServer('worker-round-trip');
    const tollgate = await forkServer('sql-server');
    started.push(bare, roundTrip, tollgate);
    const select = JSON.stringify({ query: 'SELECT id, name FROM items WHERE id = 42' });
    const insert = JSON.stringify({ query: "INSERT INTO log VALUES (unixepoch(), 'written')", context: { db: 'disk' } });
    const auth = { authorization: 'Bearer tg-bench-key-0001-0123456789abcdef' };
    const [baseline, floor, reads, writes] = await interleavedLoad(
      [
        { name: 'bare node:http, constant JSON', url: bare.url, body: select },
        { name: 'node:http + one worker round trip, constant row (floor for SQL in a worker)', url: roundTrip.url, body: select },
        { name: 'Tollgate point select (auth on)', url: `${tollgate.url}/api/sql/query`, headers: auth, body: select },
        { name: 'Tollgate durable insert (file, fsync, group commit)', url: `${tollgate.url}/api/sql/query`, headers: auth, body: insert },
      ],
      { rounds: ROUNDS, seconds: SECONDS },
    );
    const rows = [baseline!, floor!, reads!, writes!];
    return [
      `### SQL endpoint (${CONNECTIONS} connections; ${ROUNDS} interleaved rounds of ${SECONDS} s after a warm-up round; medians)`,
      '',
      '| scenario | req/s | p50 ms | p99 ms | req/s per round |',
      '|---|---:|---:|---:|---|',
      ...rows.map((r) => `| ${r.name} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${r.rounds.join(' ')} |`),
      '',
      `Point-select ratio Tollgate / bare: ${ratio(reads!, baseline!).toFixed(2)} (target ≥ 0.85). The worker-round-trip floor alone reaches ${ratio(floor!, baseline!).toFixed(2)}; Tollgate reaches ${ratio(reads!, floor!).toFixed(2)} of that floor.`,
    ].join('\n');
  } finally {
    for (const p of started) p.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await sqlBench());
  process.exit(0);
}
