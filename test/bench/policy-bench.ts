// Issue 4 benchmark: what admission + settlement cost per request with the memory store and with Redis,
// and how many Redis round trips a request takes (target: one to admit, one to settle).
import { Redis } from 'ioredis';
import { KeyRing } from '../../packages/middleware/src/auth/index.js';
import { parseConfig } from '../../packages/middleware/src/config/index.js';
import { createPolicy, type AdmissionRequest } from '../../packages/middleware/src/policy/index.js';
import { systemClock } from '../../packages/middleware/src/runtime-clock.js';
import { RedisServer } from '../support/redis-server.js';

const N = Number(process.env.BENCH_POLICY_REQUESTS ?? 20_000);

const request: AdmissionRequest = {
  principal: { keyId: 'bench', org: 'bench', scopes: ['models'] },
  alias: 'bench-model',
  billing: 'wallet',
  price: { input: 2.5, output: 10 },
  estimatedInputTokens: 20,
  maxOutputTokens: 256,
};

async function measure(store: Record<string, unknown>): Promise<number> {
  const { config } = parseConfig({ organizations: { bench: { wallet: 1_000_000, limits: { rpm: 10_000_000, tpm: 1_000_000_000, concurrency: 1000 } } }, store }, {});
  const { policy } = await createPolicy({ config, keys: new KeyRing(), clock: systemClock, baseDir: process.cwd() });
  const concurrency = 16;
  const perWorker = N / concurrency;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = 0; i < perWorker; i++) {
        const admission = await policy.admit(request);
        await admission.settle({ inputTokens: 20, outputTokens: 40 });
      }
    }),
  );
  const elapsed = performance.now() - started;
  await policy.close();
  return (elapsed * 1000) / N;
}

async function scriptCalls(redisUrl: string): Promise<number> {
  const client = new Redis(redisUrl);
  const info = await client.info('commandstats');
  client.disconnect();
  return [...info.matchAll(/cmdstat_(evalsha|eval):calls=(\d+)/g)].reduce((sum, m) => sum + Number(m[2]), 0);
}

/** Runs the policy benchmark and returns its report as Markdown. */
export async function policyBench(): Promise<string> {
  const memory = await measure({ kind: 'memory' });
  const redis = await RedisServer.start();
  try {
    const before = await scriptCalls(redis.url);
    const redisCost = await measure({ kind: 'redis', url: redis.url });
    const calls = (await scriptCalls(redis.url)) - before;
    return [
      `### Policy: admission + settlement per request (${N} requests, 16 in flight)`,
      '',
      '| store | µs per request (admit + settle) | Redis round trips per request |',
      '|---|---:|---:|',
      `| memory | ${memory.toFixed(1)} | 0 |`,
      `| redis (real redis-server on loopback) | ${redisCost.toFixed(1)} | ${(calls / N).toFixed(2)} (one script to admit, one to settle) |`,
    ].join('\n');
  } finally {
    await redis.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await policyBench());
  process.exit(0);
}
