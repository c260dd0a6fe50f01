// Profiles servers/idempotent-json.ts (the Idempotency-Key layer alone) under one scenario: KEYED=1 a new key per
// request, else none. `KEYED=1 N=40000 node --conditions=tollgate-source --import tsx test/bench/idempotency-layer-profile.ts <dir>`
// writes the server's .cpuprofile into <dir> (read it with cpu-profile-summary.ts or an inclusive-time script).
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import autocannon from 'autocannon';
import { forkServer } from './bench-process.js';
import { profileSummary } from './cpu-profile-summary.js';

const dir = process.argv[2] ?? '/tmp/tollgate-profile-idempotency-layer';
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const flags = process.env.SERVER_FLAGS?.split(' ').filter(Boolean) ?? [];
const server = await forkServer('idempotent-json', process.env.BASE ? { CHECKOUT: process.env.BASE } : {}, ['--cpu-prof', `--cpu-prof-dir=${dir}`, ...flags]);
// PIN=1: the server on core 1, this load generator on core 0 (a 2-core machine's least noisy split).
if (process.env.PIN) {
  execFileSync('taskset', ['-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
  execFileSync('taskset', ['-a', '-p', '-c', '1', String(server.child.pid)], { stdio: 'ignore' });
}
const body = JSON.stringify({ model: 'bench-model', messages: [{ role: 'user', content: 'Say hello.' }] });
const headers = { 'content-type': 'application/json' };
const name = process.env.KEYED ? 'idempotency-key' : 'x-bench-nonce';
const requests: autocannon.Request[] = [{ method: 'POST', setupRequest: (req: autocannon.Request) => ({ ...req, headers: { ...headers, [name]: randomUUID() } }) }];
const result = await autocannon({ url: `${server.url}/`, method: 'POST', connections: 32, amount: Number(process.env.N ?? 40_000), headers, body, requests });
console.log(`${result.requests.average} req/s, non2xx ${result.non2xx}`);
await new Promise<void>((resolve) => {
  server.child.once('exit', () => resolve());
  server.child.send('exit');
});
console.log(profileSummary(dir));
