// Profiles Tollgate's server on the PostgreSQL benchmark's requests (issue 20): `N=20000 node
// --conditions=tollgate-source --import tsx test/bench/profile-postgres.ts [dir]` writes a .cpuprofile of N point
// selects then N inserts and prints the top self-time functions and files (inclusive time by function:
// `node /work/notes/incl.mjs <dir> 'middleware|pg' 60`).
import { mkdirSync, rmSync } from 'node:fs';
import autocannon from 'autocannon';
import { forkServer } from './bench-process.js';
import { profileSummary } from './cpu-profile-summary.js';
import { CONNECTIONS } from './interleaved-load.js';
import { seedBenchTables } from './sql-postgres-bench.js';
import { PostgresServer } from '../support/postgres-server.js';

const dir = process.argv[2] ?? '/tmp/tollgate-pg-profile';
const N = Number(process.env.N ?? 20_000);
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const postgres = await PostgresServer.start({ fsync: true });
try {
  await seedBenchTables(postgres.url);
  const server = await forkServer('pg-tollgate-server', { BENCH_PG_URL: postgres.url }, ['--conditions=tollgate-source', '--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-interval=${process.env.INTERVAL_US ?? 1000}`]);
  const headers = { 'content-type': 'application/json', authorization: 'Bearer tg-bench-key-0001-0123456789abcdef' };
  const bodies = [{ query: 'SELECT id, name FROM items WHERE id = ?', params: [42] }, { query: "INSERT INTO log VALUES (now(), 'written')" }];
  for (const body of bodies) {
    const result = await autocannon({ url: `${server.url}/api/sql/query`, method: 'POST', connections: CONNECTIONS, amount: N, headers, body: JSON.stringify(body) });
    console.log(`${body.query}: ${result.requests.average} req/s, non2xx ${result.non2xx}, errors ${result.errors}`);
  }
  await new Promise<void>((resolve) => {
    server.child.once('exit', () => resolve());
    server.child.send('exit');
  });
} finally {
  await postgres.close();
}
console.log(profileSummary(dir));
