// Issue 22 benchmark: what reservations and idempotency keys cost per request, against the bare proxy.
// BENCH_ROUNDS / BENCH_SECONDS reduce it (the machine is shared); run alone with
//   BENCH_ROUNDS=3 BENCH_SECONDS=2 node --conditions=tollgate-source --import tsx test/bench/beyond-bench.ts
import { randomUUID } from 'node:crypto';
import { forkServer, type BenchProcess } from './bench-process.js';
import { CONNECTIONS, interleavedLoad, ratio, type Measured } from './interleaved-load.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const chatBody = JSON.stringify({ model: 'bench-model', messages: [{ role: 'user', content: 'Say hello.' }] });
const auth = { authorization: 'Bearer tg-bench-key-0001-0123456789abcdef' };

/** Runs the reservations-and-idempotency benchmark and returns its report as Markdown. */
export async function beyondBench(): Promise<string> {
  const started: BenchProcess[] = [];
  try {
    const upstream = await forkServer('constant-upstream');
    started.push(upstream);
    const upstreamV1 = `${upstream.url}/v1`;
    const proxy = await forkServer('bare-proxy', { UPSTREAM_URL: upstreamV1 });
    // An unpriced prompt needs no tokenizing before the call: the reservation is then output-only.
    const unpriced = await forkServer('tollgate-server', { UPSTREAM_URL: upstreamV1, PRICE_INPUT: '0' });
    const gateway = await forkServer('tollgate-server', { UPSTREAM_URL: upstreamV1 });
    // Replays on a server of their own: the key-per-request rows fill the other's records past maxEntries
    // (10,000), which would evict the replayed key and make its repeats run again (409 while it runs).
    const replaying = await forkServer('tollgate-server', { UPSTREAM_URL: upstreamV1 });
    started.push(proxy, unpriced, gateway, replaying);
    // The replayed key's first run, before the load: while it runs, repeats would answer 409.
    await fetch(`${replaying.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth, 'idempotency-key': 'bench-replayed' }, body: chatBody }).then((r) => r.text());
    const rows = await interleavedLoad(
      [
        { name: 'bare undici proxy', url: proxy.url, body: chatBody },
        { name: 'Tollgate, unpriced prompt (reservation without tokenizing)', url: `${unpriced.url}/v1/chat/completions`, headers: auth, body: chatBody },
        { name: 'Tollgate, priced prompt (reservation with the prompt estimate)', url: `${gateway.url}/v1/chat/completions`, headers: auth, body: chatBody },
        // Control: the same per-request header generation in the load generator, with a header Tollgate ignores.
        { name: 'Tollgate + a new ignored header per request (load-generator control)', url: `${gateway.url}/v1/chat/completions`, headers: auth, body: chatBody, perRequestHeaders: () => ({ 'x-bench-nonce': randomUUID() }) },
        { name: 'Tollgate + a new Idempotency-Key per request', url: `${gateway.url}/v1/chat/completions`, headers: auth, body: chatBody, perRequestHeaders: () => ({ 'idempotency-key': randomUUID() }) },
        { name: 'Tollgate, a repeated key (replays)', url: `${replaying.url}/v1/chat/completions`, headers: { ...auth, 'idempotency-key': 'bench-replayed' }, body: chatBody },
      ],
      { rounds: ROUNDS, seconds: SECONDS },
    );
    const [bare, unpricedRow, priced, control, keyed] = rows as [Measured, Measured, Measured, Measured, Measured, Measured];
    return [
      `### Reservations and idempotency keys (${CONNECTIONS} connections; ${ROUNDS} interleaved rounds of ${SECONDS} s after a warm-up round; medians)`,
      '',
      '| front | req/s | p50 ms | p99 ms | vs bare proxy | req/s per round |',
      '|---|---:|---:|---:|---:|---|',
      ...rows.map((r) => `| ${r.name} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${(ratio(r, bare) * 100).toFixed(0)}% | ${r.rounds.join(' ')} |`),
      '',
      `Tokenizing the prompt for its reservation: ${(ratio(priced, unpricedRow) * 100).toFixed(1)}% of the unpriced throughput. A key per request: ${(ratio(keyed, priced) * 100).toFixed(1)}% of the throughput without one, ${(ratio(keyed, control) * 100).toFixed(1)}% of the control that generates a header per request too. Both on vs bare proxy: ${(ratio(keyed, bare) * 100).toFixed(1)}% (issue target ≥ 90%).`,
    ].join('\n');
  } finally {
    for (const p of started) p.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await beyondBench());
  process.exit(0);
}
