// A JSON answer behind Idempotency-Key handling alone, no gateway around it (idempotency-layer-cpu.ts): node:http,
// the request body read and parsed, then runIdempotently with the memory store around one sendJson. Without the
// header it is the control (runIdempotently calls the handler as is). CHECKOUT=<dir> loads that checkout's
// idempotency/ and http/ source instead of this one's (an A/B in the same rounds).
import { createServer } from 'node:http';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = process.env.CHECKOUT ?? fileURLToPath(new URL('../../../', import.meta.url));
const src = (path: string) => import(pathToFileURL(join(root, 'packages/middleware/src', path)).href);
const [{ runIdempotently, MemoryIdempotencyStore }, { sendJson }] = await Promise.all([src('idempotency/index.ts'), src('http/index.ts')]);
const store = new MemoryIdempotencyStore({ now: () => Date.now() }, { maxEntries: 10_000, maxBytes: 64 * 1_048_576 });
// The bench's chat completion, with the headers the gateway adds.
const answer = { id: 'chatcmpl-bench', object: 'chat.completion', created: 1_700_000_000, model: 'gpt-4o', choices: [{ index: 0, message: { role: 'assistant', content: 'Hello! How can I help you today?' }, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 9, total_tokens: 19 } };
let served = 0;

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString()) as unknown;
    res.setHeader('x-request-id', `req_${++served}`);
    const run = async () => sendJson(res, 200, answer, { 'x-tollgate-cost-usd': '0.000028', 'x-tollgate-route': 'upstream/gpt-4o' });
    runIdempotently({ req, res, org: 'bench', body, store, maxAnswerBytes: 4 * 1_048_576, stream: false }, run).catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as { port: number }).port }));
// Garbage collections on the main thread, by kind, for idempotency-layer-cpu.ts's GC columns: count and ms.
const gcs = { scavenges: 0, scavengeMs: 0, majors: 0, majorMs: 0, incremental: 0, incrementalMs: 0 };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = (entry as unknown as { detail: { kind: number } }).detail.kind;
    if (kind === constants.NODE_PERFORMANCE_GC_MINOR) (gcs.scavenges++, (gcs.scavengeMs += entry.duration));
    else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) (gcs.majors++, (gcs.majorMs += entry.duration));
    else if (kind === constants.NODE_PERFORMANCE_GC_INCREMENTAL) (gcs.incremental++, (gcs.incrementalMs += entry.duration));
  }
}).observe({ entryTypes: ['gc'] });
process.on('message', (message) => {
  if (message === 'exit') process.exit(0); // lets --cpu-prof write its profile
  if (message === 'gc') process.send?.({ ...gcs, heapUsed: process.memoryUsage().heapUsed });
});
