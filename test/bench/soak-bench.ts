// `npm run bench:soak [-- --minutes 10] [--settlements 10000000] [--stores memory,redis,memory-no-file] [--no-history] [--no-forced-gc]`:
// full-speed chat completions for N minutes through Tollgate (its own process, built output) from an
// organization with rpm, tpm and concurrency limits set high enough never to refuse, first on the memory
// store with its file, then on Redis (a real redis-server, appendfsync always); per minute: req/s, p99,
// RSS, CPU µs per request of the server, the fake upstream and this process (the load generator), GC,
// event-loop use and the memory store's snapshots and group commits (its diagnostics channels). Then a history of M settlements (an old-format journal) is opened twice: the first start migrates
// it, the second is the one measured. Targets (issue 14): last minute ≥ 95% of the first, RSS growth
// ≤ 64 MiB, no failed request; second start ready ≤ 1 s with ≤ 300 MiB RSS.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { cpuMicros, forkServer, memoryOf, type BenchProcess } from './bench-process.js';
import { CONNECTIONS } from './interleaved-load.js';
import { RedisServer } from '../support/redis-server.js';
import { writeOldJournal } from '../support/old-journal.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    settlements: { type: 'string', default: '10000000' },
    stores: { type: 'string', default: 'memory,redis' },
    'no-history': { type: 'boolean', default: false },
    // Skips the forced collection after each minute (the heap-after-GC column), which resizes V8's heap
    // between minutes: to see whether the measurement itself moves the figures.
    'no-forced-gc': { type: 'boolean', default: false },
  },
});
const minutes = Number(values.minutes);
const settlements = Number(values.settlements);
if (!(minutes > 0) || !(settlements > 0)) throw new Error('--minutes and --settlements must be positive numbers');
const MiB = 2 ** 20;
const body = JSON.stringify({ model: 'bench-model', messages: [{ role: 'user', content: 'Say hello to the soak benchmark.' }], max_tokens: 32 });

interface Minute {
  minute: number;
  rps: number;
  p99: number;
  failed: number;
  /** What the failures were: count per status and reason, connection errors, timeouts. */
  failures: string;
  rssMiB: number;
  heapMiB: number;
  /** Server process CPU (utime + stime, all threads) per request completed in the minute, µs. */
  cpuUs: number;
  /** The fake upstream's CPU per request: the control — the same work every minute, so its drift is the machine's. */
  upstreamCpuUs: number;
  /** This process's CPU (autocannon) per request: the third sharer of the machine's cores. */
  loadCpuUs: number;
  activity: ServerStats;
}

/** What the soak server reports on 'stats' (servers/soak-tollgate-server.ts): cumulative, differenced per minute. */
interface ServerStats {
  snapshots: number;
  snapshotMs: number;
  snapshotMaxMs: number;
  snapshotCaptureMs: number;
  snapshotBytes: number;
  journalCommits: number;
  journalLines: number;
  journalBytes: number;
  journalMs: number;
  ledgerCommits: number;
  ledgerLines: number;
  ledgerBytes: number;
  ledgerMs: number;
  ledgerRotations: number;
  gcCount: number;
  gcMs: number;
  gcMaxMs: number;
  rss: number;
  heapUsed: number;
  elu: { idle: number; active: number };
}

function statsOf(server: BenchProcess): Promise<ServerStats> {
  return new Promise((resolve) => {
    server.child.once('message', (message) => resolve(message as ServerStats));
    server.child.send('stats');
  });
}

/** Readings that are not running totals: the longest GC and snapshot since the previous reading, the last snapshot's size, memory. */
const GAUGES = new Set<keyof ServerStats>(['snapshotMaxMs', 'gcMaxMs', 'snapshotBytes', 'rss', 'heapUsed', 'elu']);

/** One minute's activity: running totals differenced, gauges as read at its end. */
function minuteOf(before: ServerStats, after: ServerStats): ServerStats {
  const minute = { ...after, elu: { idle: after.elu.idle - before.elu.idle, active: after.elu.active - before.elu.active } };
  for (const key of Object.keys(after) as (keyof ServerStats)[]) {
    if (!GAUGES.has(key)) (minute[key] as number) = (after[key] as number) - (before[key] as number);
  }
  return minute;
}

async function soak(name: string, store: object, baseDir: string): Promise<string> {
  process.stderr.write(`soak: ${name}, ${minutes} minute(s)…\n`);
  const upstream = await forkServer('constant-upstream');
  const gateway = await forkServer('soak-tollgate-server', { UPSTREAM_URL: `${upstream.url}/v1`, STORE: JSON.stringify(store), BASE_DIR: baseDir });
  const rows: Minute[] = [];
  try {
    const start = await memoryOf(gateway);
    // Each minute is one autocannon run, back to back: the load never stops for more than a moment.
    for (let minute = 1; minute <= Math.ceil(minutes); minute++) {
      const seconds = Math.min(60, Math.round((minutes - minute + 1) * 60));
      const refused = new Map<string, number>();
      const statsBefore = await statsOf(gateway);
      const cpuBefore = cpuMicros(gateway.child.pid!);
      const upstreamBefore = cpuMicros(upstream.child.pid!);
      const loadBefore = process.cpuUsage();
      const result = await autocannon({
        url: gateway.url,
        connections: CONNECTIONS,
        duration: seconds,
        requests: [{ method: 'POST', path: '/v1/chat/completions', headers: { 'content-type': 'application/json', authorization: 'Bearer tg-bench-key-0001-0123456789abcdef' }, body, onResponse: (status, answer, _context, headers) => tallyRefusal(refused, status, answer, headers) }],
      });
      const cpuUs = (cpuMicros(gateway.child.pid!) - cpuBefore) / result.requests.total;
      const upstreamCpuUs = (cpuMicros(upstream.child.pid!) - upstreamBefore) / result.requests.total;
      const load = process.cpuUsage(loadBefore);
      const loadCpuUs = (load.user + load.system) / result.requests.total;
      const activity = minuteOf(statsBefore, await statsOf(gateway));
      const memory = values['no-forced-gc'] ? { rss: activity.rss, heapUsed: activity.heapUsed } : await memoryOf(gateway);
      const failures = [...[...refused].map(([kind, count]) => `${count} ${kind}`), ...Object.entries({ errors: result.errors - result.timeouts, timeouts: result.timeouts }).filter(([, count]) => count > 0).map(([kind, count]) => `${count} ${kind}`)].join(', ');
      rows.push({ minute, rps: result.requests.average, p99: result.latency.p99, failed: result.non2xx + result.errors, failures, rssMiB: memory.rss / MiB, heapMiB: memory.heapUsed / MiB, cpuUs, upstreamCpuUs, loadCpuUs, activity });
      process.stderr.write(`  minute ${minute}: ${result.requests.average.toFixed(0)} req/s, ${cpuUs.toFixed(0)} CPU µs/request (upstream ${upstreamCpuUs.toFixed(0)}, load generator ${loadCpuUs.toFixed(0)}), GC ${activity.gcMs.toFixed(0)} ms, snapshots ${activity.snapshots} (${activity.snapshotMs.toFixed(0)} ms), p99 ${result.latency.p99} ms, RSS ${(memory.rss / MiB).toFixed(0)} MiB, failed ${rows.at(-1)!.failed} ${failures}\n`);
    }
    const first = rows[0]!;
    const last = rows.at(-1)!;
    const failed = rows.reduce((sum, row) => sum + row.failed, 0);
    const growth = Math.max(...rows.map((row) => row.rssMiB)) - start.rss / MiB;
    const throughput = last.rps / first.rps;
    const cpuGrowth = last.cpuUs / first.cpuUs;
    // The first minute includes the JIT's warm-up; the second is the steadier baseline for a trend.
    const second = rows[1] ?? first;
    return [
      `#### Soak: ${name} (${minutes} min, ${CONNECTIONS} connections, limits rpm 1e9 / tpm 1e12 / concurrency 1e6)`,
      '',
      `| minute | req/s | server CPU µs/request | upstream CPU µs/request (control) | load generator CPU µs/request | p99 ms | RSS MiB | heap MiB (${values['no-forced-gc'] ? 'live, no forced GC' : 'after GC'}) | failed |`,
      '|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...rows.map((row) => `| ${row.minute} | ${row.rps.toFixed(0)} | ${row.cpuUs.toFixed(1)} | ${row.upstreamCpuUs.toFixed(1)} | ${row.loadCpuUs.toFixed(1)} | ${row.p99} | ${row.rssMiB.toFixed(0)} | ${row.heapMiB.toFixed(0)} | ${row.failed}${row.failures ? ` (${row.failures})` : ''} |`),
      '',
      `Server CPU per request, last minute / first: ${(cpuGrowth * 100).toFixed(1)}%; last / second: ${((last.cpuUs / second.cpuUs) * 100).toFixed(1)}% (a per-request cost that grows is the server's doing; a flat one with falling req/s is the machine's). ` +
        `Server ÷ upstream CPU per request by minute (the machine's drift divided out): ${rows.map((row) => (row.cpuUs / row.upstreamCpuUs).toFixed(2)).join(' ')}.`,
      '',
      '| minute | GC ms (count, longest) | event loop busy | snapshots (ms total, longest, capture ms, size) | journal commits (lines/commit, ms/commit, MiB) | ledger commits (lines/commit, ms/commit, MiB, rotations) |',
      '|---:|---|---:|---|---|---|',
      ...rows.map(({ minute, activity: a }) => {
        const perCommit = (lines: number, ms: number, commits: number) => (commits > 0 ? `${(lines / commits).toFixed(1)}, ${(ms / commits).toFixed(2)} ms` : '–');
        return `| ${minute} | ${a.gcMs.toFixed(0)} (${a.gcCount}, ${a.gcMaxMs.toFixed(1)} ms) | ${((a.elu.active / (a.elu.active + a.elu.idle)) * 100).toFixed(0)}% | ${a.snapshots} (${a.snapshotMs.toFixed(0)} ms, ${a.snapshotMaxMs.toFixed(0)} ms, ${a.snapshotCaptureMs.toFixed(1)} ms, ${a.snapshotBytes} B) | ${a.journalCommits} (${perCommit(a.journalLines, a.journalMs, a.journalCommits)}, ${(a.journalBytes / MiB).toFixed(0)}) | ${a.ledgerCommits} (${perCommit(a.ledgerLines, a.ledgerMs, a.ledgerCommits)}, ${(a.ledgerBytes / MiB).toFixed(0)}, ${a.ledgerRotations}) |`;
      }),
      '',
      `RSS at start ${(start.rss / MiB).toFixed(0)} MiB. Last minute / first: ${(throughput * 100).toFixed(1)}% (target ≥ 95%: ${throughput >= 0.95 ? 'met' : 'NOT met'}); ` +
        `RSS growth ${growth.toFixed(0)} MiB (target ≤ 64: ${growth <= 64 ? 'met' : 'NOT met'}); failed requests ${failed} (target 0: ${failed === 0 ? 'met' : 'NOT met'}).`,
    ].join('\n');
  } finally {
    gateway.child.send('exit');
    await new Promise((resolve) => setTimeout(resolve, 500));
    gateway.stop();
    upstream.stop();
  }
}

/** Redis's worst stall per event (LATENCY LATEST, ≥ 100 ms) and its AOF rewrites during the soak, as Markdown. */
async function redisStalls(redis: Redis): Promise<string> {
  const events = (await redis.call('LATENCY', 'LATEST')) as [string, number, number, number][];
  const persistence = await redis.info('persistence');
  const rewrites = /aof_rewrites:(\d+)/.exec(persistence)?.[1] ?? '?';
  const stalls = events.map(([event, , latest, max]) => `${event} ${max} ms (latest ${latest} ms)`).join(', ');
  return `Redis stalls of 100 ms or more, worst per event: ${stalls || 'none'}; AOF rewrites: ${rewrites}.`;
}

/** Counts a refused answer by status and reason (`x-service-reason`, else the error body's code), e.g. "503 policy_unavailable". */
function tallyRefusal(refused: Map<string, number>, status: number, answer: string, headers: Record<string, string | string[] | undefined> | undefined): void {
  if (status < 400) return;
  let reason = headers?.['x-service-reason'];
  if (reason === undefined) {
    try {
      reason = (JSON.parse(answer) as { error?: { code?: string; type?: string } }).error?.code ?? 'no reason';
    } catch {
      reason = 'unparsable body';
    }
  }
  const kind = `${status} ${String(reason)}`;
  refused.set(kind, (refused.get(kind) ?? 0) + 1);
}

function startOn(dir: string): { readyMs: number; rss: number; maxRss: number; requests: number } {
  const child = fileURLToPath(new URL('./store-start-child.mjs', import.meta.url));
  return JSON.parse(execFileSync(process.execPath, [child, dir], { encoding: 'utf8', maxBuffer: 1 << 20 })) as { readyMs: number; rss: number; maxRss: number; requests: number };
}

async function history(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-soak-history-'));
  try {
    process.stderr.write(`history: writing ${settlements} settlements…\n`);
    const written = performance.now();
    const totals = await writeOldJournal(join(dir, 'state.json'), { org: 'acme', walletMicros: 1_000_000_000_000, settlements });
    const writeMs = performance.now() - written;
    process.stderr.write(`history: ${(totals.bytes / MiB).toFixed(0)} MiB in ${(writeMs / 1000).toFixed(1)} s; first start (migration)…\n`);
    const first = startOn(dir);
    process.stderr.write(`history: second start…\n`);
    const second = startOn(dir);
    const third = startOn(dir);
    if (first.requests !== settlements || second.requests !== settlements) throw new Error(`usage reports ${first.requests} / ${second.requests} requests, not ${settlements}`);
    const row = (label: string, r: typeof first) => `| ${label} | ${r.readyMs.toFixed(0)} | ${(r.rss / MiB).toFixed(0)} | ${(r.maxRss / MiB).toFixed(0)} |`;
    const ok = second.readyMs <= 1000 && second.maxRss <= 300 * MiB;
    return [
      `#### Start-up on a history of ${settlements.toLocaleString('en')} settlements (${(totals.bytes / MiB).toFixed(0)} MiB old-format journal, written in ${(writeMs / 1000).toFixed(1)} s)`,
      '',
      '| start | ready ms | RSS MiB at ready | peak RSS MiB |',
      '|---|---:|---:|---:|',
      row('first (migrates the old journal, streamed)', first),
      row('second (snapshot + journal tail)', second),
      row('third', third),
      '',
      `Second start: ${second.readyMs.toFixed(0)} ms, peak RSS ${(second.maxRss / MiB).toFixed(0)} MiB (target ≤ 1 s and ≤ 300 MiB: ${ok ? 'met' : 'NOT met'}); usage reports all ${settlements.toLocaleString('en')} requests.`,
    ].join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const sections: string[] = [];
const stores = values.stores.split(',');
// Every soak writes under a directory of its own, removed at exit: the Redis store exports its ledger to
// `<baseDir>/data/ledger`, and a soak against the shared tmpdir() left gigabytes there.
const scratch: string[] = [];
process.on('exit', () => scratch.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratch.push(dir);
  return dir;
}
if (stores.includes('memory')) sections.push(await soak('memory store with its file', { kind: 'memory', file: 'state.json' }, scratchDir('tollgate-soak-memory-')));
// A diagnostic: the same load with no file at all, to tell what the files cost from what the rest costs.
if (stores.includes('memory-no-file')) sections.push(await soak('memory store without a file (diagnostic)', { kind: 'memory' }, scratchDir('tollgate-soak-no-file-')));
if (stores.includes('redis')) {
  const redis = await RedisServer.start();
  // Redis's own record of its stalls (fsync, AOF rewrite, fork, slow commands), so a failed request in the
  // table above can be matched to what Redis was doing: admission answers 503 policy_unavailable once a
  // stall passes policyTimeoutMs (1 s), for every admission in flight at that moment.
  const observer = new Redis(redis.url);
  try {
    await observer.config('SET', 'latency-monitor-threshold', '100');
    const soaked = await soak('Redis store (real redis-server, appendfsync always)', { kind: 'redis', url: redis.url, prefix: 'soak:' }, scratchDir('tollgate-soak-redis-'));
    sections.push(`${soaked}\n\n${await redisStalls(observer)}`);
  } finally {
    observer.disconnect();
    await redis.close();
  }
}
if (!values['no-history']) sections.push(await history());
console.log(`## Soak benchmark (${new Date().toISOString().slice(0, 10)}, ${process.version})\n\n${sections.join('\n\n')}`);
process.exit(0);
