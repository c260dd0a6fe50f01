// Issue 21: what the Prometheus metrics cost the gateway — the same Tollgate server with metrics off and
// on, interleaved against one upstream (BENCH_ROUNDS, BENCH_SECONDS scale it down on a busy machine).
import { forkServer, type BenchProcess } from './bench-process.js';
import { CONNECTIONS, interleavedLoad, ratio, type Measured } from './interleaved-load.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const chatBody = JSON.stringify({ model: 'bench-model', messages: [{ role: 'user', content: 'Say hello.' }] });

/** Runs the metrics-overhead benchmark and returns its report as Markdown. */
export async function observeBench(): Promise<string> {
  const started: BenchProcess[] = [];
  try {
    const upstream = await forkServer('constant-upstream');
    started.push(upstream);
    const upstreamV1 = `${upstream.url}/v1`;
    const off = await forkServer('tollgate-server', { UPSTREAM_URL: upstreamV1 });
    const on = await forkServer('tollgate-server', { UPSTREAM_URL: upstreamV1, TOLLGATE_BENCH_METRICS: '1' });
    started.push(off, on);
    const headers = { authorization: 'Bearer tg-bench-key-0001-0123456789abcdef' };
    const rows = await interleavedLoad(
      [
        { name: 'Tollgate, metrics off', url: `${off.url}/v1/chat/completions`, headers, body: chatBody },
        { name: 'Tollgate, metrics on', url: `${on.url}/v1/chat/completions`, headers, body: chatBody },
      ],
      { rounds: ROUNDS, seconds: SECONDS },
    );
    const [offRow, onRow] = rows as [Measured, Measured];
    const scrape = await fetch(`${on.url}/metrics`).then((response) => response.text());
    const counted = /tollgate_requests_total\{[^}]*status="200"[^}]*\} (\d+)/.exec(scrape)?.[1];
    return [
      `### Metrics overhead: non-streaming chat completions (${CONNECTIONS} connections; ${ROUNDS} interleaved rounds of ${SECONDS} s after a warm-up round; medians)`,
      '',
      '| front | req/s | p50 ms | p99 ms | req/s per round |',
      '|---|---:|---:|---:|---|',
      ...rows.map((r) => `| ${r.name} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${r.rounds.join(' ')} |`),
      '',
      `Metrics on / off throughput: ${(ratio(onRow, offRow) * 100).toFixed(1)}%; the scrape afterwards counted ${counted ?? '?'} answered requests.`,
    ].join('\n');
  } finally {
    for (const p of started) p.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await observeBench());
  process.exit(0);
}
