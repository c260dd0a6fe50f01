import { microsToUsd } from '../policy/index.js';
import { readLedgerFile, type LedgerLine } from '../store/index.js';
import { add, dayOf, emptySum, sumOf, type LedgerDigests, type Sum } from './ledger-digests.js';

/** One bar of a chart: a day, an alias or a key, with what it spent and used. */
export interface ActivityBar {
  label: string;
  costUsd: number;
  inputTokens: number;
  outputTokens: number;
  requests: number;
}

/** An organization's settlements of the last `days` UTC days, summed by day, alias and key (the console's charts). */
export interface OrgActivity {
  days: ActivityBar[];
  byAlias: ActivityBar[];
  byKey: ActivityBar[];
}

/** One row of the recent ledger, as the console shows it. */
export interface LedgerRow {
  at: string;
  keyId: string;
  alias: string;
  route: string | null;
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  includedTokens: number;
  costUsd: number;
  requestId: string | null;
}

const DAY = 86_400_000;
export const LEDGER_PAGE_SIZE = 25;
/** Paging reaches this far back (newest first): memory for a page stays bounded by (page + 1) × page size. */
export const MAX_LEDGER_PAGE = 39;

/**
 * Sums the organization's ledger lines of the last `days` UTC days (today included), from the ledger files' digests
 * (ledger-digests.ts: each file read once per size, for every organization). No digests (a store without ledger
 * files) give empty charts.
 *
 * @example
 * const { days } = await orgActivity(new LedgerDigests('data/state.json.ledger'), 'acme', Date.now(), 30);
 */
export async function orgActivity(digests: LedgerDigests | undefined, org: string, now: number, days: number): Promise<OrgActivity> {
  const firstDay = firstDayOf(now, days);
  const byDay = new Map<string, Sum>();
  for (let day = 0; day < days; day++) byDay.set(dayOf(firstDay + day * DAY), emptySum());
  const byAlias = new Map<string, Sum>();
  const byKey = new Map<string, Sum>();
  for (const digest of digests ? await digests.since(firstDay) : []) {
    for (const [day, sums] of digest.get(org) ?? []) {
      const daySum = byDay.get(day);
      if (!daySum) continue; // before the window (a file that spans its first day)
      add(daySum, sums.total);
      for (const [alias, sum] of sums.byAlias) add(sumOf(byAlias, alias), sum);
      for (const [keyId, sum] of sums.byKey) add(sumOf(byKey, keyId), sum);
    }
  }
  return { days: bars(byDay), byAlias: bars(byAlias), byKey: bars(byKey) };
}

/** The first instant of the last `days` UTC days, today included: what the charts sum, and the ledger pages reach. */
export function firstDayOf(now: number, days: number): number {
  return Math.floor(now / DAY) * DAY - (days - 1) * DAY;
}

/**
 * One page of the organization's ledger since `from`, newest first (page 0 is the newest `LEDGER_PAGE_SIZE`
 * lines), and whether an older page exists. Reads the files from the newest back, only as many as the page needs
 * and none that ended before `from`, keeping only the newest (page + 1) × page size + 1 lines. Without `from`, an
 * organization with fewer settlements than the page read every file of every organization's history, however
 * old: a page cost grew with the installation's age.
 */
export async function recentLedger(dir: string | undefined, digests: LedgerDigests | undefined, org: string, page: number, from: number): Promise<{ rows: LedgerRow[]; hasOlder: boolean }> {
  if (dir === undefined || digests === undefined) return { rows: [], hasOlder: false };
  const keep = (page + 1) * LEDGER_PAGE_SIZE + 1;
  const newest: LedgerLine[] = [];
  const firstDay = dayOf(from);
  const names = await digests.filesSince(from);
  for (let i = names.length - 1; i >= 0 && newest.length < keep; i--) {
    // Only a file holding a settlement of the organization in the window is read (its digest says so): an
    // organization with few settlements read every file of the window, every other organization's lines included.
    const days = (await digests.digestOf(names[i]!)).get(org);
    if (!days || ![...days.keys()].some((day) => day >= firstDay)) continue;
    // The newest lines of this file that still fit, in file order.
    const tail: LedgerLine[] = [];
    for await (const line of readLedgerFile(dir, names[i]!, org)) {
      if (line.at < from) continue;
      tail.push(line);
      if (tail.length > keep - newest.length) tail.shift();
    }
    for (let j = tail.length - 1; j >= 0; j--) newest.push(tail[j]!);
  }
  return { rows: newest.slice(page * LEDGER_PAGE_SIZE, (page + 1) * LEDGER_PAGE_SIZE).map(ledgerRow), hasOlder: newest.length === keep };
}

function ledgerRow(line: LedgerLine): LedgerRow {
  return {
    at: new Date(line.at).toISOString(),
    keyId: line.keyId,
    alias: line.alias,
    route: line.route ?? null,
    inputTokens: line.in,
    cachedInputTokens: line.cached ?? 0,
    outputTokens: line.out,
    includedTokens: line.included,
    costUsd: microsToUsd(line.cost),
    requestId: line.requestId ?? null,
  };
}

function bars(sums: Map<string, Sum>): ActivityBar[] {
  return [...sums].map(([label, sum]) => ({ label, costUsd: microsToUsd(sum.costMicros), inputTokens: sum.inputTokens, outputTokens: sum.outputTokens, requests: sum.requests }));
}
