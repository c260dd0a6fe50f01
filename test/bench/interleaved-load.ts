// This machine's throughput drifts by ±30% over seconds (shared cores), so fronts measured one after
// the other are not comparable. Each scenario instead runs in short slices, round-robin, and reports
// its median slice; ratios are taken per round (both sides under the same conditions), then medianed.
// One unrecorded round first warms every server up: the JIT needs seconds of load to settle, and a
// server with more code to compile would otherwise lose its first slice to it.
import autocannon from 'autocannon';

export interface Scenario {
  name: string;
  url: string;
  headers?: Record<string, string>;
  body: string;
  /** Headers that change per request (an Idempotency-Key per request). */
  perRequestHeaders?: () => Record<string, string>;
}

export interface Measured {
  name: string;
  /** Median over the rounds. */
  rps: number;
  p50: number;
  p99: number;
  /** Requests per second in each round, in order. */
  rounds: number[];
}

export const CONNECTIONS = 32;

/**
 * Loads every scenario `rounds` times for `seconds` each, interleaved, after one unrecorded warm-up
 * round. Fails on any non-2xx answer.
 */
export async function interleavedLoad(scenarios: Scenario[], options: { rounds: number; seconds: number }): Promise<Measured[]> {
  const samples = scenarios.map(() => [] as { rps: number; p50: number; p99: number }[]);
  for (let round = -1; round < options.rounds; round++) {
    for (const [i, scenario] of scenarios.entries()) {
      const headers = { 'content-type': 'application/json', ...scenario.headers };
      const perRequest = scenario.perRequestHeaders;
      const requests: autocannon.Request[] | undefined = perRequest ? [{ method: 'POST', setupRequest: (req: autocannon.Request) => ({ ...req, headers: { ...headers, ...perRequest() } }) }] : undefined;
      const result = await autocannon({ url: scenario.url, method: 'POST', connections: CONNECTIONS, duration: options.seconds, headers, body: scenario.body, ...(requests ? { requests } : {}) });
      if (result.non2xx > 0 || result.errors > 0) throw new Error(`${scenario.name}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
      if (round >= 0) samples[i]!.push({ rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 });
    }
  }
  return scenarios.map((scenario, i) => ({
    name: scenario.name,
    rps: median(samples[i]!.map((s) => s.rps)),
    p50: median(samples[i]!.map((s) => s.p50)),
    p99: median(samples[i]!.map((s) => s.p99)),
    rounds: samples[i]!.map((s) => Math.round(s.rps)),
  }));
}

/** The median over rounds of a / b, each round's pair measured seconds apart. */
export function ratio(a: Measured, b: Measured): number {
  return median(a.rounds.map((rps, round) => rps / b.rounds[round]!));
}

export function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
