// Profiles Tollgate's server under the gateway benchmark's load: `node --conditions=tollgate-source --import tsx
// test/bench/profile-gateway.ts [dir]` writes a .cpuprofile and prints the top self-time functions and files.
import { rmSync, mkdirSync } from 'node:fs';
import autocannon from 'autocannon';
import { forkServer } from './bench-process.js';
import { profileSummary } from './cpu-profile-summary.js';

const dir = process.argv[2] ?? '/tmp/tollgate-profile';
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const upstream = await forkServer('constant-upstream');
const gateway = await forkServer('tollgate-server', { UPSTREAM_URL: `${upstream.url}/v1` }, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
const body = JSON.stringify({ model: 'bench-model', messages: [{ role: 'user', content: 'Say hello.' }] });
const result = await autocannon({ url: `${gateway.url}/v1/chat/completions`, method: 'POST', connections: 32, duration: Number(process.env.BENCH_SECONDS ?? 6), headers: { 'content-type': 'application/json', authorization: 'Bearer tg-bench-key-0001-0123456789abcdef' }, body });
console.log(`tollgate: ${result.requests.average} req/s, p99 ${result.latency.p99} ms, non2xx ${result.non2xx}`);
await new Promise<void>((resolve) => {
  gateway.child.once('exit', () => resolve());
  gateway.child.send('exit');
});
upstream.stop();

console.log(profileSummary(dir));
