// Profiles Tollgate's server with a new Idempotency-Key per request: `STORE=redis node --conditions=tollgate-source
// --import tsx test/bench/profile-idempotency.ts [dir]` (STORE=memory by default) writes a .cpuprofile and prints
// the top self-time functions and files, as profile-gateway.ts does for requests without a key.
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { RedisServer } from '../support/redis-server.js';
import { forkServer } from './bench-process.js';

const dir = process.argv[2] ?? '/tmp/tollgate-profile-idempotency';
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const upstream = await forkServer('constant-upstream');
const redis = process.env.STORE === 'redis' ? await RedisServer.start() : undefined;
const store = redis ? { kind: 'redis', url: redis.url, prefix: 'bench:' } : { kind: 'memory' };
const gateway = await forkServer('tollgate-server', { UPSTREAM_URL: `${upstream.url}/v1`, STORE: JSON.stringify(store) }, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
const body = JSON.stringify({ model: 'bench-model', messages: [{ role: 'user', content: 'Say hello.' }] });
const headers = { 'content-type': 'application/json', authorization: 'Bearer tg-bench-key-0001-0123456789abcdef' };
const requests: autocannon.Request[] = [{ method: 'POST', setupRequest: (req: autocannon.Request) => ({ ...req, headers: { ...headers, 'idempotency-key': randomUUID() } }) }];
const result = await autocannon({ url: `${gateway.url}/v1/chat/completions`, method: 'POST', connections: 32, duration: Number(process.env.BENCH_SECONDS ?? 6), headers, body, requests });
console.log(`tollgate: ${result.requests.average} req/s, p99 ${result.latency.p99} ms, non2xx ${result.non2xx}`);
await new Promise<void>((resolve) => {
  gateway.child.once('exit', () => resolve());
  gateway.child.send('exit');
});
upstream.stop();
await redis?.close();

interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount: number }
const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))!;
const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { nodes: Node[] };
const total = profile.nodes.reduce((sum, n) => sum + n.hitCount, 0);
const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
for (const node of profile.nodes) {
  const where = node.callFrame.url.replace(/^.*\/(node_modules\/|packages\/)/, '$1') || '(native)';
  const fn = `${node.callFrame.functionName || '(anonymous)'} ${where}:${node.callFrame.lineNumber + 1}`;
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + node.hitCount);
  byFile.set(where, (byFile.get(where) ?? 0) + node.hitCount);
}
const top = (map: Map<string, number>, n: number) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`).join('\n');
console.log(`\nself time by file:\n${top(byFile, 25)}\n\nself time by function:\n${top(byFunction, 30)}`);
process.exit(0);
