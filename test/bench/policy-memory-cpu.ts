// The memory store's policy CPU per admit + settle, warmed up, over 200,000 requests × 5 rounds (median): policy-bench's
// 20,000-request row is mostly JIT warm-up. Run: node --conditions=tollgate-source --import tsx test/bench/policy-memory-cpu.ts
import { KeyRing } from '../../packages/middleware/src/auth/index.js';
import type { AdmissionRequest } from '../../packages/middleware/src/policy/index.js';
import { parseConfig } from '../../packages/middleware/src/config/index.js';
import { createPolicy } from '../../packages/middleware/src/store/index.js';
import { systemClock } from '../../packages/middleware/src/runtime-clock.js';
const N = Number(process.env.N ?? 200_000);
const request: AdmissionRequest = { principal: { keyId: 'bench', org: 'bench', scopes: ['models'] }, alias: 'bench-model', billing: 'wallet', price: { input: 2.5, output: 10 }, estimatedInputTokens: 20, maxOutputTokens: 256 };
const { config } = parseConfig({ organizations: { bench: { wallet: 1_000_000, limits: { rpm: 10_000_000, tpm: 1_000_000_000, concurrency: 1000 } } }, store: { kind: 'memory' } }, {});
const { policy } = await createPolicy({ config, keys: new KeyRing(), clock: systemClock, baseDir: process.cwd() });
async function run(n: number) {
  await Promise.all(Array.from({ length: 16 }, async () => { for (let i = 0; i < n / 16; i++) { const a = await policy.admit(request); await a.settle({ inputTokens: 20, outputTokens: 40 }); } }));
}
await run(50_000); // warm-up
const results: number[] = [];
for (let r = 0; r < 5; r++) { const before = process.cpuUsage(); await run(N); const cpu = process.cpuUsage(before); results.push((cpu.user + cpu.system) / N); }
results.sort((a, b) => a - b);
console.log(`memory CPU µs/request median ${results[2]!.toFixed(2)} (rounds ${results.map((x) => x.toFixed(2)).join(' ')})`);
await policy.close();
