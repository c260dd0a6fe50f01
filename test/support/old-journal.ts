import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

/** What the generated history sums to, as `usage()` must report it. */
export interface HistoryTotals {
  requests: number;
  inputTokens: number;
  outputTokens: number;
  costMicros: number;
  bytes: number;
}

/**
 * Writes an old-format journal (the memory store's only file before snapshots): an opening balance, then
 * `settlements` settlement lines of organization `org`, streamed in large chunks so a history of many
 * hundred MiB is written in seconds. Token counts and costs vary with the line number; the totals are returned.
 *
 * @example
 * const totals = await writeOldJournal('data/state.json', { org: 'acme', walletMicros: 1e12, settlements: 3_200_000 });
 */
export async function writeOldJournal(file: string, options: { org: string; walletMicros: number; settlements: number; start?: number }): Promise<HistoryTotals> {
  const out = createWriteStream(file, { mode: 0o600 });
  const start = options.start ?? Date.parse('2026-10-01T00:00:00Z');
  const totals: HistoryTotals = { requests: 0, inputTokens: 0, outputTokens: 0, costMicros: 0, bytes: 0 };
  let chunk = `${JSON.stringify({ t: 'open', at: start, org: options.org, micros: options.walletMicros, payment: true })}\n`;
  for (let n = 0; n < options.settlements; n++) {
    const input = 100 + (n % 900);
    const output = 20 + (n % 400);
    const cost = input * 3 + output * 15;
    chunk += `{"t":"settle","id":"00000000-0000-4000-8000-${String(n).padStart(12, '0')}","at":${start + n * 10},"org":"${options.org}","keyId":"config-0-1a2b3c4d","alias":"claude-sonnet","in":${input},"out":${output},"included":0,"cost":${cost}}\n`;
    totals.requests++;
    totals.inputTokens += input;
    totals.outputTokens += output;
    totals.costMicros += cost;
    if (chunk.length > 1 << 20) {
      totals.bytes += chunk.length;
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  totals.bytes += chunk.length;
  out.end(chunk);
  await once(out, 'finish');
  return totals;
}
