// Tollgate serving a PostgreSQL database (kind postgres, BENCH_PG_URL) with authentication on. BENCH_TOLLGATE_ENTRY
// names another checkout's src/index.ts: sql-postgres-cpu.ts runs the base code as a third front (BENCH_BASE).
import { createServer } from 'node:http';
import type { tollgate as Tollgate } from '@tollgate/middleware';

const { tollgate } = (await import(process.env.BENCH_TOLLGATE_ENTRY ?? '@tollgate/middleware')) as { tollgate: typeof Tollgate };
const gate = tollgate(
  {
    keys: [
      { key: 'tg-bench-key-0001-0123456789abcdef', org: 'bench' },
      { key: 'tg-bench-read-0001-0123456789abcdef', org: 'bench', scopes: ['sql:read'] },
    ],
    organizations: { bench: {} },
    sql: { databases: { main: { kind: 'postgres', url: process.env.BENCH_PG_URL!, pool: { max: 16 } } } },
  },
  { logger: { info() {}, error: (m, e) => console.error(m, e) } },
);
const server = createServer(gate);
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as { port: number }).port }));
process.on('message', (message) => {
  if (message === 'exit') process.exit(0); // lets --cpu-prof write its profile
});
