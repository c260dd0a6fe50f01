// Tollgate mounted as `tollgate serve` mounts it, in its own process, so the test samples this process's RSS alone.
import { createServer } from 'node:http';
import connect from 'connect';
import { tollgate } from '@tollgate/middleware';

const gate = tollgate(
  { keys: [{ key: 'tg-keyless-memory-key-0123456789abcdef', org: 'acme' }], organizations: { acme: { wallet: 1 } } },
  { logger: { info() {}, error() {} } },
);
await gate.ready();
const app = connect();
app.use(gate);
const server = createServer(app).listen(0, '127.0.0.1', () => {
  process.send?.({ port: (server.address() as { port: number }).port });
});
process.on('message', (message) => {
  if (message !== 'rss') return;
  (globalThis as { gc?: () => void }).gc?.();
  process.send?.({ rss: process.memoryUsage().rss });
});
