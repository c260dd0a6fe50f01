// Issue 20 benchmark: point selects and durable inserts through POST /api/sql/query on the postgres kind,
// beside a bare node:http + pg server doing the same queries on the same PostgreSQL (fsync on), interleaved.
// Both servers reach PostgreSQL over TCP loopback (the target, measured that way since session 15) and,
// as a second pair, over its Unix-domain socket: what a same-host deployment should use (README "PostgreSQL").
import pg from 'pg';
import { PostgresServer } from '../support/postgres-server.js';
import { forkServer, type BenchProcess } from './bench-process.js';
import { CONNECTIONS, interleavedLoad, ratio, type Measured, type Scenario } from './interleaved-load.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
/** BENCH_PG_TRANSPORTS=tcp measures the TCP pair alone (half the time). */
const TRANSPORTS = (process.env.BENCH_PG_TRANSPORTS ?? 'tcp,socket').split(',');

/** The tables both servers query: 1,000 rows to select by key, an empty log to insert into. */
export async function seedBenchTables(url: string): Promise<void> {
  const seed = new pg.Client({ connectionString: url });
  await seed.connect();
  await seed.query("CREATE TABLE items(id int PRIMARY KEY, name text); INSERT INTO items SELECT x, 'row ' || x FROM generate_series(1, 1000) x; CREATE TABLE log(at timestamptz, note text)");
  await seed.end();
}

const AUTH = { authorization: 'Bearer tg-bench-key-0001-0123456789abcdef' };
const INSERT_TEXT = "INSERT INTO log VALUES (now(), 'written')";

/** The four scenarios of one transport: bare and Tollgate, point select and insert. */
function scenariosOver(transport: string, bare: BenchProcess, tollgate: BenchProcess): Scenario[] {
  const endpoint = `${tollgate.url}/api/sql/query`;
  return [
    { name: `bare node:http + pg, point select, ${transport}`, url: bare.url, body: JSON.stringify({ query: 'SELECT id, name FROM items WHERE id = $1', params: [42] }) },
    { name: `Tollgate postgres kind, point select (auth on), ${transport}`, url: endpoint, headers: AUTH, body: JSON.stringify({ query: 'SELECT id, name FROM items WHERE id = ?', params: [42] }) },
    { name: `bare node:http + pg, insert (fsync on), ${transport}`, url: bare.url, body: JSON.stringify({ query: INSERT_TEXT }) },
    { name: `Tollgate postgres kind, insert (fsync on), ${transport}`, url: endpoint, headers: AUTH, body: JSON.stringify({ query: INSERT_TEXT }) },
  ];
}

/** Runs the PostgreSQL benchmark and returns its report as Markdown. */
export async function sqlPostgresBench(): Promise<string> {
  // Two pairs of servers with pools of 16 each.
  const postgres = await PostgresServer.start({ fsync: true, maxConnections: 100 });
  const started: BenchProcess[] = [];
  try {
    await seedBenchTables(postgres.url);
    const urls: Record<string, { label: string; url: string }> = {
      tcp: { label: 'TCP loopback', url: postgres.url },
      socket: { label: 'Unix socket', url: postgres.socketUrl },
    };
    const scenarios: Scenario[] = [];
    for (const transport of TRANSPORTS) {
      const { label, url } = urls[transport]!;
      const bare = await forkServer('pg-bare-server', { BENCH_PG_URL: url });
      const tollgate = await forkServer('pg-tollgate-server', { BENCH_PG_URL: url });
      started.push(bare, tollgate);
      scenarios.push(...scenariosOver(label, bare, tollgate));
    }
    const rows = await interleavedLoad(scenarios, { rounds: ROUNDS, seconds: SECONDS });
    const ratios = TRANSPORTS.map((transport, i) => {
      const [bareSelect, tgSelect, bareInsert, tgInsert] = rows.slice(4 * i, 4 * i + 4) as [Measured, Measured, Measured, Measured];
      const target = transport === 'tcp' ? ' (the target, ≥ 0.8 on both)' : ' (for comparison)';
      return `${urls[transport]!.label}, Tollgate / bare: point selects ${ratio(tgSelect, bareSelect).toFixed(2)}, inserts ${ratio(tgInsert, bareInsert).toFixed(2)}${target}.`;
    });
    return [
      `### SQL endpoint on PostgreSQL (${CONNECTIONS} connections, pool 16; ${ROUNDS} interleaved rounds of ${SECONDS} s after a warm-up round; medians)`,
      '',
      '| scenario | req/s | p50 ms | p99 ms | req/s per round |',
      '|---|---:|---:|---:|---|',
      ...rows.map((r) => `| ${r.name} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${r.rounds.join(' ')} |`),
      '',
      ...ratios,
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
