// Issue 20 benchmark: point selects and durable inserts through POST /api/sql/query on the postgres kind,
// beside a bare node:http + pg server doing the same queries on the same PostgreSQL (fsync on), interleaved.
import pg from 'pg';
import { PostgresServer } from '../support/postgres-server.js';
import { forkServer, type BenchProcess } from './bench-process.js';
import { CONNECTIONS, interleavedLoad, ratio } from './interleaved-load.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);

/** The tables both servers query: 1,000 rows to select by key, an empty log to insert into. */
export async function seedBenchTables(url: string): Promise<void> {
  const seed = new pg.Client({ connectionString: url });
  await seed.connect();
  await seed.query("CREATE TABLE items(id int PRIMARY KEY, name text); INSERT INTO items SELECT x, 'row ' || x FROM generate_series(1, 1000) x; CREATE TABLE log(at timestamptz, note text)");
  await seed.end();
}

/** Runs the PostgreSQL benchmark and returns its report as Markdown. */
export async function sqlPostgresBench(): Promise<string> {
  const postgres = await PostgresServer.start({ fsync: true });
  const started: BenchProcess[] = [];
  try {
    await seedBenchTables(postgres.url);
    const env = { BENCH_PG_URL: postgres.url };
    const bare = await forkServer('pg-bare-server', env);
    const tollgate = await forkServer('pg-tollgate-server', env);
    started.push(bare, tollgate);
    const auth = { authorization: 'Bearer tg-bench-key-0001-0123456789abcdef' };
    const insertText = "INSERT INTO log VALUES (now(), 'written')";
    const [bareSelect, tgSelect, bareInsert, tgInsert] = await interleavedLoad(
      [
        { name: 'bare node:http + pg, point select', url: bare.url, body: JSON.stringify({ query: 'SELECT id, name FROM items WHERE id = $1', params: [42] }) },
        { name: 'Tollgate postgres kind, point select (auth on)', url: `${tollgate.url}/api/sql/query`, headers: auth, body: JSON.stringify({ query: 'SELECT id, name FROM items WHERE id = ?', params: [42] }) },
        { name: 'bare node:http + pg, insert (fsync on)', url: bare.url, body: JSON.stringify({ query: insertText }) },
        { name: 'Tollgate postgres kind, insert (fsync on)', url: `${tollgate.url}/api/sql/query`, headers: auth, body: JSON.stringify({ query: insertText }) },
      ],
      { rounds: ROUNDS, seconds: SECONDS },
    );
    const rows = [bareSelect!, tgSelect!, bareInsert!, tgInsert!];
    return [
      `### SQL endpoint on PostgreSQL (${CONNECTIONS} connections, pool 16; ${ROUNDS} interleaved rounds of ${SECONDS} s after a warm-up round; medians)`,
      '',
      '| scenario | req/s | p50 ms | p99 ms | req/s per round |',
      '|---|---:|---:|---:|---|',
      ...rows.map((r) => `| ${r.name} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${r.rounds.join(' ')} |`),
      '',
      `Tollgate / bare: point selects ${ratio(tgSelect!, bareSelect!).toFixed(2)}, inserts ${ratio(tgInsert!, bareInsert!).toFixed(2)} (target ≥ 0.8 on both).`,
    ].join('\n');
  } finally {
    for (const p of started) p.stop();
    await postgres.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await sqlPostgresBench());
  process.exit(0);
}
