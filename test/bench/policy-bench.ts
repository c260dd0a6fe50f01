// Issue 4 benchmark: what admission + settlement cost per request with the memory store and with Redis,
// and how many Redis round trips a request takes (target: one to admit, one to settle).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { KeyRing } from '../../packages/middleware/src/auth/index.js';
import { parseConfig } from '../../packages/middleware/src/config/index.js';
import { type AdmissionRequest } from '../../packages/middleware/src/policy/index.js';
import { createPolicy } from '../../packages/middleware/src/store/index.js';
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

async function measure(store: Record<string, unknown>): Promise<{ micros: number; cpuMicros: number; commandsPerRequest: number }> {
  const { config } = parseConfig({ organizations: { bench: { wallet: 1_000_000, limits: { rpm: 10_000_000, tpm: 1_000_000_000, concurrency: 1000 } } }, store }, {});
  const { policy } = await createPolicy({ config, keys: new KeyRing(), clock: systemClock, baseDir: process.cwd() });
  const concurrency = 16;
  const perWorker = N / concurrency;
  const commandsBefore = commandsSent;
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = 0; i < perWorker; i++) {
        const admission = await policy.admit(request);
        await admission.settle({ inputTokens: 20, outputTokens: 40 });
      }
    }),
  );
  const elapsed = performance.now() - started;
  // This process's CPU (user + system), which other processes' load distorts far less than wall time.
  const cpu = process.cpuUsage(cpuBefore);
  const commandsPerRequest = (commandsSent - commandsBefore) / N;
  await policy.close();
  return { micros: (elapsed * 1000) / N, cpuMicros: (cpu.user + cpu.system) / N, commandsPerRequest };
}

/**
 * Counts the commands Tollgate sends, at the client: every command ioredis writes goes through
 * `sendCommand`, and the policy never pipelines on the request path, so each one is a round trip.
 */
let commandsSent = 0;
const sendCommand = Redis.prototype.sendCommand;
Redis.prototype.sendCommand = function countedSendCommand(this: Redis, ...args: Parameters<Redis['sendCommand']>) {
  commandsSent++;
  return sendCommand.apply(this, args);
};

/** Runs the policy benchmark and returns its report as Markdown. */
export async function policyBench(): Promise<string> {
  const memory = await measure({ kind: 'memory' });
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-policy-bench-'));
  const journalled = await measure({ kind: 'memory', file: join(dir, 'state.json') });
  rmSync(dir, { recursive: true, force: true });
  const redis = await RedisServer.start();
  try {
    // The ledger export runs as in production, into a directory of its own.
    const ledgerDir = mkdtempSync(join(tmpdir(), 'tollgate-policy-bench-ledger-'));
    const shared = await measure({ kind: 'redis', url: redis.url, ledger: { dir: ledgerDir } });
    rmSync(ledgerDir, { recursive: true, force: true });
    return [
      `### Policy: admission + settlement per request (${N} requests, 16 in flight)`,
      '',
      '| store | µs per request (admit + settle) | Tollgate process CPU µs per request | Redis round trips per request |',
      '|---|---:|---:|---:|',
      `| memory, no file | ${memory.micros.toFixed(1)} | ${memory.cpuMicros.toFixed(1)} | – |`,
      `| memory + journal file (fsync, group commit) | ${journalled.micros.toFixed(1)} | ${journalled.cpuMicros.toFixed(1)} | – |`,
      `| redis (real redis-server on loopback, appendfsync always) | ${shared.micros.toFixed(1)} | ${shared.cpuMicros.toFixed(1)} | ${shared.commandsPerRequest.toFixed(2)} (one script to admit, one to settle) |`,
    ].join('\n');
  } finally {
    await redis.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await policyBench());
  process.exit(0);
}
