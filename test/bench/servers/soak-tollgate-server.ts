// Tollgate for the soak benchmark: node:http with the middleware, one organization whose rpm, tpm and
// concurrency limits are set (so every admission keeps its rate-limit state) but high enough never to
// refuse, and the store given in STORE (JSON) — the memory store with its file, or Redis.
import { createServer } from 'node:http';
import { tollgate } from '@tollgate/middleware';

const gate = tollgate(
  {
    defaultCatalog: false,
    keys: [{ key: 'tg-bench-key-0001-0123456789abcdef', org: 'bench' }],
    organizations: { bench: { wallet: 1_000_000_000, limits: { rpm: 1e9, tpm: 1e12, concurrency: 1e6 } } },
    providers: { upstream: { kind: 'openai', baseUrl: process.env.UPSTREAM_URL!, apiKey: 'sk-bench' } },
    models: { 'bench-model': { routes: [{ provider: 'upstream', model: 'gpt-4o' }], price: { input: 1, output: 2 }, maxOutputTokens: 4096 } },
    store: JSON.parse(process.env.STORE!),
  },
  { baseDir: process.env.BASE_DIR ?? process.cwd(), logger: { info() {}, error: (m, e) => console.error(m, e) } },
);
await gate.ready();
const server = createServer(gate);
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as { port: number }).port }));
process.on('message', (message) => {
  if (message === 'memory') {
    // Resident memory as the operator sees it (no forced collection), and the live heap after one.
    const { rss } = process.memoryUsage();
    (globalThis as { gc?: () => void }).gc?.();
    process.send?.({ rss, heapUsed: process.memoryUsage().heapUsed });
  }
  if (message === 'exit') void gate.close().then(() => process.exit(0));
});
