// Issue 3 benchmark: non-streaming chat completions through six fronts to one upstream, one run, one
// load generator; then stream time-to-first-byte and memory with 1,000 open streams.
import { Agent, request } from 'undici';
import { forkServer, memoryOf, startPortkey, type BenchProcess } from './bench-process.js';
import { CONNECTIONS, interleavedLoad, ratio, type Measured } from './interleaved-load.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
// BENCH_OPEN_STREAMS=10000: issue 19's "10,000 concurrent open streams stay under 1 GiB RSS".
const OPEN_STREAMS = Number(process.env.BENCH_OPEN_STREAMS ?? 1000);
// BENCH_HTTP2=1: the memory part's upstream speaks HTTP/2 and the gateway multiplexes over it (`relay.http2`),
// one socket per stream instead of two: how 10,000 streams fit this machine's 20,000 open files.
const HTTP2 = process.env.BENCH_HTTP2 === '1';
const chatBody = JSON.stringify({ model: 'bench-model', messages: [{ role: 'user', content: 'Say hello.' }] });

async function timeToFirstByte(url: string, headers: Record<string, string>, runs = 50): Promise<number> {
  const times: number[] = [];
  const body = JSON.stringify({ model: 'bench-model', stream: true, messages: [{ role: 'user', content: 'hi' }] });
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    const response = await request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    for await (const _ of response.body) {
      times.push(performance.now() - start);
      break;
    }
    await response.body.dump();
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/** What to look at with the streams open (stream-heap-census.ts takes heap snapshots there). */
export interface OpenStreamsProbe {
  before?(gateway: BenchProcess): Promise<void>;
  during?(gateway: BenchProcess): Promise<void>;
}

export interface OpenStreamsMemory {
  before: { rss: number; heapUsed: number };
  during: { rss: number; heapUsed: number };
  /** With BENCH_HTTP2: the HTTP/2 connections the gateway opened to the upstream. */
  upstreamConnections?: number;
}

/** A server the memory part opens streams through, and the env that sets its upstream connections. */
export interface MemoryFront {
  name: string;
  /** One of ./servers, or a server file by absolute path (a base checkout's, BENCH_BASE). */
  server: string;
  connectionsEnv: string;
  /** Whether it can relay to the HTTP/2 upstream (BENCH_HTTP2). */
  http2: boolean;
}

/**
 * How many upstream connections a front gets: `relayed`, one per stream (every stream really relayed at once);
 * `pooled`, the default 256 (the rest wait in undici's pool: how issue 19's 8.5 KiB was measured).
 */
export type StreamMethod = 'relayed' | 'pooled';

export const tollgateFront: MemoryFront = { name: 'Tollgate', server: 'tollgate-server', connectionsEnv: 'RELAY_CONNECTIONS', http2: true };
export const bareProxyFront: MemoryFront = { name: 'bare undici proxy', server: 'bare-proxy', connectionsEnv: 'PROXY_CONNECTIONS', http2: false };
// BENCH_BASE=<a checkout of main, built, its node_modules linked>: the code before the change, measured in the same run.
const BASE = process.env.BENCH_BASE;
const memoryFronts: MemoryFront[] = [
  bareProxyFront,
  tollgateFront,
  ...(BASE ? [{ name: 'Tollgate (base)', server: `${BASE}/test/bench/servers/tollgate-server.ts`, connectionsEnv: 'RELAY_CONNECTIONS', http2: true }] : []),
];
const connectionsFor = (method: StreamMethod, count: number): number => (method === 'relayed' && !HTTP2 ? Math.max(256, count + 10) : 256);

export async function memoryWithOpenStreams(count: number, probe: OpenStreamsProbe = {}, front = tollgateFront, method: StreamMethod = 'relayed'): Promise<OpenStreamsMemory> {
  // Held long enough that the first streams are still open when the last one opens, even on a loaded machine.
  const upstream = await forkServer(HTTP2 ? 'constant-upstream-h2' : 'constant-upstream', { HOLD_MS: String(Math.max(20_000, count * 20)) });
  const gateway = await forkServer(front.server, { UPSTREAM_URL: `${upstream.url}/v1`, [front.connectionsEnv]: String(connectionsFor(method, count)), RELAY_HTTP2: HTTP2 ? '1' : '0' });
  try {
    await probe.before?.(gateway);
    const before = await memoryOf(gateway);
    const agent = new Agent({ connections: count + 10 });
    const body = JSON.stringify({ model: 'bench-model', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const open = async () => {
      const response = await request(`${gateway.url}/v1/chat/completions`, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json', authorization: 'Bearer tg-bench-key-0001-0123456789abcdef' }, body });
      const reader = response.body[Symbol.asyncIterator]();
      await reader.next();
      return response;
    };
    // Opened 500 at a time: thousands of connects at once overflow the listen backlog (connect timeouts).
    const streams: Awaited<ReturnType<typeof open>>[] = [];
    for (let opened = 0; opened < count; opened += 500) streams.push(...(await Promise.all(Array.from({ length: Math.min(500, count - opened) }, open))));
    const during = await memoryOf(gateway);
    await probe.during?.(gateway);
    const upstreamConnections = HTTP2 ? await sessionsOf(upstream) : undefined;
    for (const stream of streams) stream.body.destroy();
    await agent.destroy();
    return { before, during, upstreamConnections };
  } finally {
    gateway.stop();
    upstream.stop();
  }
}

function sessionsOf(upstream: BenchProcess): Promise<number> {
  return new Promise((resolve) => {
    upstream.child.once('message', (message) => resolve((message as { sessions: number }).sessions));
    upstream.child.send('sessions');
  });
}

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
const kibPerStream = (m: OpenStreamsMemory) => ((m.during.heapUsed - m.before.heapUsed) / OPEN_STREAMS / 1024).toFixed(1);

/**
 * Heap per open stream of each front, both methods, one after another in one run (memory after a full GC is
 * far less sensitive to load than CPU, but base and change still share the same machine state).
 */
export async function memoryTable(): Promise<string[]> {
  const fronts = memoryFronts.filter((front) => !HTTP2 || front.http2);
  const methods: StreamMethod[] = HTTP2 ? ['pooled'] : ['relayed', 'pooled'];
  const rows: string[] = [];
  for (const method of methods) {
    for (const front of fronts) {
      const memory = await memoryWithOpenStreams(OPEN_STREAMS, {}, front, method);
      const connections = memory.upstreamConnections === undefined ? `${connectionsFor(method, OPEN_STREAMS)}${HTTP2 ? '' : ' (limit)'}` : `${memory.upstreamConnections} HTTP/2`;
      rows.push(`| ${front.name} | ${method} | ${connections} | ${mib(memory.before.rss)} → ${mib(memory.during.rss)} | ${mib(memory.before.heapUsed)} → ${mib(memory.during.heapUsed)} | ${kibPerStream(memory)} |`);
    }
  }
  return [
    `Memory with ${OPEN_STREAMS.toLocaleString('en-US')} concurrent open streams, after a full GC. ${HTTP2 ? 'Upstream over HTTP/2 (relay.http2): 256 connections, up to 100 streams each.' : "relayed: one upstream connection per stream; pooled: 256, the rest queued in undici's pool."}`,
    '',
    '| front | method | upstream connections | RSS MiB before → during | JS heap MiB before → during | KiB heap per open stream |',
    '|---|---|---:|---:|---:|---:|',
    ...rows,
  ];
}

/** Runs the gateway benchmark and returns its report as Markdown. */
export async function gatewayBench(): Promise<string> {
  const started: BenchProcess[] = [];
  try {
    const upstream = await forkServer('constant-upstream');
    started.push(upstream);
    const upstreamV1 = `${upstream.url}/v1`;
    const proxy = await forkServer('bare-proxy', { UPSTREAM_URL: upstreamV1 });
    const chunkedProxy = await forkServer('bare-proxy', { UPSTREAM_URL: upstreamV1, PROXY_CHUNKED: '1' });
    const topLevelProxy = await forkServer('bare-proxy-top-level-request', { UPSTREAM_URL: upstreamV1 });
    const jsonProxy = await forkServer('json-proxy', { UPSTREAM_URL: upstreamV1 });
    const leanJsonProxy = await forkServer('lean-json-proxy', { UPSTREAM_URL: upstreamV1 });
    const gateway = await forkServer('tollgate-server', { UPSTREAM_URL: upstreamV1 });
    const portkey = await startPortkey(18_000 + Math.floor(Math.random() * 1000));
    started.push(proxy, chunkedProxy, topLevelProxy, jsonProxy, leanJsonProxy, gateway, portkey);
    const auth = { authorization: 'Bearer tg-bench-key-0001-0123456789abcdef' };

    const rows = await interleavedLoad(
      [
        { name: 'direct to upstream', url: `${upstreamV1}/chat/completions`, body: chatBody },
        { name: 'bare undici proxy (Agent#request)', url: proxy.url, body: chatBody },
        { name: 'the same proxy answering chunked (the reference before session 20)', url: chunkedProxy.url, body: chatBody },
        { name: "the same proxy through undici's top-level request()", url: topLevelProxy.url, body: chatBody },
        { name: 'proxy that parses both bodies (floor for metering)', url: jsonProxy.url, body: chatBody },
        { name: 'the same parsing proxy with the least machinery (undici dispatch, no body helpers)', url: leanJsonProxy.url, body: chatBody },
        { name: 'Tollgate', url: `${gateway.url}/v1/chat/completions`, headers: auth, body: chatBody },
        {
          name: 'Portkey gateway 1.15.2',
          url: `${portkey.url}/v1/chat/completions`,
          headers: { authorization: 'Bearer sk-bench', 'x-portkey-provider': 'openai', 'x-portkey-custom-host': upstreamV1 },
          body: chatBody,
        },
      ],
      { rounds: ROUNDS, seconds: SECONDS },
    );
    const [direct, bare, chunkedBare, topLevel, floor, leanFloor, tollgate, portkeyRow] = rows as [Measured, Measured, Measured, Measured, Measured, Measured, Measured, Measured];
    const ttfbDirect = await timeToFirstByte(`${upstreamV1}/chat/completions`, {});
    const ttfbProxy = await timeToFirstByte(proxy.url, {});
    const ttfbTollgate = await timeToFirstByte(`${gateway.url}/v1/chat/completions`, auth);
    for (const p of started.splice(0)) p.stop();
    const memory = await memoryTable();

    const lines = [
      `### Gateway: non-streaming chat completions (${CONNECTIONS} connections; ${ROUNDS} interleaved rounds of ${SECONDS} s after a warm-up round; medians)`,
      '',
      '| front | req/s | p50 ms | p99 ms | added p50 ms | added p99 ms | vs bare proxy | req/s per round |',
      '|---|---:|---:|---:|---:|---:|---:|---|',
      ...rows.map((r) => `| ${r.name} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${r.p50 - direct.p50} | ${r.p99 - direct.p99} | ${(ratio(r, bare) * 100).toFixed(0)}% | ${r.rounds.join(' ')} |`),
      '',
      `Tollgate / bare proxy throughput: ${(ratio(tollgate, bare) * 100).toFixed(1)}% (issue 3's floor ≥ 80%; issues 19 and 22: ≥ 90%); p99 ${tollgate.p99} ms vs ${bare.p99} ms (issue 3: ≤ 2×; issue 19: ≤ 1.5×); ${ratio(tollgate, portkeyRow).toFixed(1)}× Portkey.`,
      `Against the same proxy answering chunked (its terminator in a write of its own; the bare proxy of every figure before session 20), Tollgate reaches ${(ratio(tollgate, chunkedBare) * 100).toFixed(1)}%; that proxy reaches ${(ratio(chunkedBare, bare) * 100).toFixed(1)}% of the bare proxy.`,
      `Written with undici's top-level request(), the same proxy reaches ${(ratio(topLevel, bare) * 100).toFixed(1)}% of the bare proxy; Tollgate reaches ${(ratio(tollgate, topLevel) * 100).toFixed(1)}% of it.`,
      `The parse-both-bodies floor reaches ${(ratio(floor, bare) * 100).toFixed(1)}% of the bare proxy; Tollgate reaches ${(ratio(tollgate, floor) * 100).toFixed(1)}% of that floor.`,
      `The same parsing with the least machinery reaches ${(ratio(leanFloor, bare) * 100).toFixed(1)}% of the bare proxy; Tollgate reaches ${(ratio(tollgate, leanFloor) * 100).toFixed(1)}% of it.`,
      '',
      `Stream time to first byte (median of 50): direct ${ttfbDirect.toFixed(2)} ms, through the bare proxy ${ttfbProxy.toFixed(2)} ms, through Tollgate ${ttfbTollgate.toFixed(2)} ms.`,
      '',
      ...memory,
    ];
    return lines.join('\n');
  } finally {
    for (const p of started) p.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  // --memory: only the open-streams memory part (BENCH_OPEN_STREAMS, BENCH_HTTP2, BENCH_BASE apply).
  console.log(process.argv.includes('--memory') ? (await memoryTable()).join('\n') : await gatewayBench());
  process.exit(0);
}
