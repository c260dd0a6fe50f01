// Tollgate as a user would run it: node:http with the middleware, memory store, one organization.
// STORE (JSON) gives another store, e.g. Redis (idempotency-cpu.ts).
import { createServer } from 'node:http';
import { tollgate as ownTollgate } from '@tollgate/middleware';
import { answerMemoryProbes } from './memory-probes.js';

// tollgate-base-server.ts runs this server on another build of the middleware.
const other = process.env.TOLLGATE_BENCH_MIDDLEWARE;
const tollgate: typeof ownTollgate = other ? ((await import(other)) as { tollgate: typeof ownTollgate }).tollgate : ownTollgate;

const gate = tollgate(
  {
    defaultCatalog: false,
    keys: [{ key: 'tg-bench-key-0001-0123456789abcdef', org: 'bench' }],
    organizations: { bench: { wallet: 1_000_000 } },
    providers: { upstream: { kind: 'openai', baseUrl: process.env.UPSTREAM_URL!, apiKey: 'sk-bench' } },
    models: { 'bench-model': { routes: [{ provider: 'upstream', model: 'gpt-4o' }], price: { input: Number(process.env.PRICE_INPUT ?? 1), output: 2 }, maxOutputTokens: 4096 } },
    store: process.env.STORE ? JSON.parse(process.env.STORE) : { kind: 'memory' },
    // One upstream connection per open stream when the memory bench opens more than the default 256.
    // RELAY_HTTP2=1: upstream streams multiplexed over HTTP/2 (with constant-upstream-h2).
    relay: { connections: Number(process.env.RELAY_CONNECTIONS ?? 256), http2: process.env.RELAY_HTTP2 === '1' },
    // TOLLGATE_BENCH_METRICS=1: the same server with the Prometheus metrics on (observe-bench.ts).
    ...(process.env.TOLLGATE_BENCH_METRICS === '1' ? { metrics: { path: '/metrics', auth: 'none' as const } } : {}),
  },
  { logger: { info() {}, error: (m, e) => console.error(m, e) } },
);
await gate.ready();
const server = createServer(gate);
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as { port: number }).port }));
answerMemoryProbes();
process.on('message', (message) => {
  if (message === 'exit') process.exit(0); // lets --cpu-prof write its profile
});
