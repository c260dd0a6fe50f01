// Tollgate for the soak benchmark: node:http with the middleware, one organization whose rpm, tpm and
// concurrency limits are set (so every admission keeps its rate-limit state) but high enough never to
// refuse, and the store given in STORE (JSON) — the memory store with its file, or Redis.
import { subscribe } from 'node:diagnostics_channel';
import { createServer } from 'node:http';
import { performance, PerformanceObserver } from 'node:perf_hooks';
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

// What the soak reports per minute beside req/s (cumulative here; the bench takes differences): the memory
// store's snapshots and group commits (its diagnostics channels, store/journal-events.ts), garbage
// collection and event-loop utilization, so a per-request cost that grows can be traced to its part.
const stats = {
  snapshots: 0, snapshotMs: 0, snapshotMaxMs: 0, snapshotCaptureMs: 0, snapshotBytes: 0,
  journalCommits: 0, journalLines: 0, journalBytes: 0, journalMs: 0,
  ledgerCommits: 0, ledgerLines: 0, ledgerBytes: 0, ledgerMs: 0, ledgerRotations: 0,
  gcCount: 0, gcMs: 0, gcMaxMs: 0,
};
type Commit = { lines: number; bytes: number; ms: number };
subscribe('tollgate:store:snapshot', (event) => {
  const { ms, captureMs, snapshotBytes } = event as { ms: number; captureMs: number; snapshotBytes: number };
  stats.snapshots++;
  stats.snapshotMs += ms;
  stats.snapshotMaxMs = Math.max(stats.snapshotMaxMs, ms);
  stats.snapshotCaptureMs += captureMs;
  stats.snapshotBytes = snapshotBytes;
});
// The journal's and the ledger's group commits, counted alike.
for (const file of ['journal', 'ledger'] as const) {
  subscribe(`tollgate:store:${file}-commit`, (event) => {
    const { lines, bytes, ms } = event as Commit;
    stats[`${file}Commits`]++;
    stats[`${file}Lines`] += lines;
    stats[`${file}Bytes`] += bytes;
    stats[`${file}Ms`] += ms;
  });
}
subscribe('tollgate:store:ledger-rotate', () => stats.ledgerRotations++);
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    stats.gcCount++;
    stats.gcMs += entry.duration;
    stats.gcMaxMs = Math.max(stats.gcMaxMs, entry.duration);
  }
}).observe({ entryTypes: ['gc'] });

process.on('message', (message) => {
  if (message === 'stats') {
    // No forced collection here: the live heap as the load leaves it. ELU is cumulative since start.
    const { rss, heapUsed } = process.memoryUsage();
    process.send?.({ ...stats, rss, heapUsed, elu: performance.eventLoopUtilization() });
    // The longest GC and snapshot are per reading: the bench reads at each minute's start and end.
    stats.snapshotMaxMs = 0;
    stats.gcMaxMs = 0;
  }
  if (message === 'memory') {
    // Resident memory as the operator sees it (no forced collection), and the live heap after one.
    const { rss } = process.memoryUsage();
    (globalThis as { gc?: () => void }).gc?.();
    process.send?.({ rss, heapUsed: process.memoryUsage().heapUsed });
  }
  if (message === 'exit') void gate.close().then(() => process.exit(0));
});
