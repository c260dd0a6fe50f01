// Tollgate serving SQL with authentication on: an in-memory table for reads, a file database for durable writes
// (BENCH_DISK_DIR: a directory holding a seeded bench.sqlite, for the database-size benchmark).
import { createServer } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tollgate } from '@tollgate/middleware';

const gate = tollgate(
  {
    keys: [{ key: 'tg-bench-key-0001-0123456789abcdef', org: 'bench' }],
    organizations: { bench: {} },
    sql: { databases: { main: {}, disk: { file: 'bench.sqlite' } } },
  },
  { baseDir: process.env.BENCH_DISK_DIR ?? mkdtempSync(join(tmpdir(), 'tollgate-bench-')), logger: { info() {}, error: (m, e) => console.error(m, e) } },
);
const server = createServer(gate);
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', async () => {
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/api/sql/query`;
  const post = (query: string, db = 'main') => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer tg-bench-key-0001-0123456789abcdef' }, body: JSON.stringify({ query, context: { db } }) });
  await post("CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT); WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 1000) INSERT INTO items SELECT x, 'row ' || x FROM c");
  await post('CREATE TABLE IF NOT EXISTS log(at INTEGER, note TEXT)', 'disk');
  process.send?.({ port: (server.address() as { port: number }).port });
});
process.on('message', (message) => {
  if (message === 'memory') {
    const { rss, heapUsed } = process.memoryUsage(); // the worker threads' memory is in this process's RSS
    process.send?.({ rss, heapUsed });
  }
  if (message === 'exit') process.exit(0); // lets --cpu-prof write its profile
});
