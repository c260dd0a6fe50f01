// Profiles Tollgate's server with a new Idempotency-Key per request: `STORE=redis node --conditions=tollgate-source
// --import tsx test/bench/profile-idempotency.ts [dir]` (STORE=memory by default) writes a .cpuprofile and prints
// the top self-time functions and files, as profile-gateway.ts does for requests without a key.
import { randomUUID } from 'node:crypto';
import { rmSync, mkdirSync } from 'node:fs';
import autocannon from 'autocannon';
import { RedisServer } from '../support/redis-server.js';
import { forkServer } from './bench-process.js';
import { profileSummary } from './cpu-profile-summary.js';

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

console.log(profileSummary(dir));
process.exit(0);
