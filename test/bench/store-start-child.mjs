// One start of a memory store on a history, as production runs it (the built package, plain node):
// prints how long until ready and the resident memory at that moment and at its peak. Args: dir.
import { tollgate } from '../../packages/middleware/dist/index.js';

const started = performance.now();
const gate = tollgate(
  { organizations: { acme: { wallet: 1_000_000, paymentMethod: true } }, store: { kind: 'memory', file: 'state.json' } },
  { baseDir: process.argv[2], logger: { info() {}, error: (m, e) => console.error(m, e) } },
);
await gate.ready();
const readyMs = performance.now() - started;
const usage = await gate.admin.usage('acme');
console.log(JSON.stringify({ readyMs, rss: process.memoryUsage().rss, maxRss: process.resourceUsage().maxRSS * 1024, requests: usage.requests }));
await gate.close();
