// A Tollgate on a file database, run as a child process so the test can SIGKILL it.
import { createServer } from 'node:http';
import { tollgate } from '@tollgate/middleware';

const dir = process.argv[2]!;
const gate = tollgate(
  { keys: [{ key: 'tg-durable-key-001-0123456789abcdef', org: 'acme' }], organizations: { acme: {} }, sql: { databases: { main: { file: 'main.sqlite' } } } },
  { baseDir: dir, logger: { info() {}, error() {} } },
);
await gate.ready();
const server = createServer(gate).listen(0, '127.0.0.1', () => {
  process.send?.({ url: `http://127.0.0.1:${(server.address() as { port: number }).port}` });
});
