import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ledgerFileReaches, ledgerFiles, readLedgerFile } from '../store/index.js';

/** What a set of settlements spent and used. */
export interface Sum {
  costMicros: number;
  inputTokens: number;
  outputTokens: number;
  requests: number;
}

/** One organization's settlements of one UTC day in one file, summed in total, by alias and by key. */
export interface DaySums {
  total: Sum;
  byAlias: Map<string, Sum>;
  byKey: Map<string, Sum>;
}

/** One ledger file's settlements, summed per organization and UTC day (`YYYY-MM-DD`). */
export type FileDigest = ReadonlyMap<string, ReadonlyMap<string, DaySums>>;

/**
 * Each ledger file's sums, computed once per file and size (one pass for every organization) and kept while the file
 * is within the console's window. The overview summed 30 days of every organization's settlements on each load, so a
 * load's cost grew with the installation's traffic, and one admin reloading it (or loading it a thousand times at
 * once) read gigabytes; a file the ledger no longer appends to is now read once, the one it appends to once per
 * change of its size (at most `ledgerFileBytes`), and loads at once share one pass. What is held is one sum per
 * organization, day, alias and key of the files in the window: bounded by those, not by the settlements.
 *
 * @example
 * const digests = new LedgerDigests('data/state.json.ledger');
 * for (const digest of await digests.since(firstDay)) digest.get('acme')?.get('2026-12-01')?.total.costMicros;
 */
export class LedgerDigests {
  /** By file name: its size when summed, and the sums (a promise, shared by loads that ask meanwhile). */
  readonly #files = new Map<string, { size: number; digest: Promise<FileDigest> }>();

  constructor(private readonly dir: string) {}

  /** The files that may hold a settlement at `from` or later, oldest first; the others' sums are forgotten. */
  async filesSince(from: number): Promise<string[]> {
    const names = await ledgerFiles(this.dir);
    const wanted = names.filter((_, i) => ledgerFileReaches(names, i, from));
    const kept = new Set(wanted);
    for (const name of this.#files.keys()) if (!kept.has(name)) this.#files.delete(name);
    return wanted;
  }

  /** The digests of the files that may hold a settlement at `from` or later, oldest first. */
  async since(from: number): Promise<FileDigest[]> {
    return Promise.all((await this.filesSince(from)).map((name) => this.digestOf(name)));
  }

  /** One file's digest: the kept one while its size is unchanged, else summed anew (one pass, shared meanwhile). */
  async digestOf(name: string): Promise<FileDigest> {
    const size = await stat(join(this.dir, name)).then((s) => s.size, () => -1);
    const kept = this.#files.get(name);
    if (kept && kept.size === size) return kept.digest;
    const digest = digestFile(this.dir, name);
    this.#files.set(name, { size, digest });
    // A failed read is not kept: the next load tries again.
    digest.catch(() => this.#files.get(name)?.digest === digest && this.#files.delete(name));
    return digest;
  }
}

async function digestFile(dir: string, name: string): Promise<FileDigest> {
  const byOrg = new Map<string, Map<string, DaySums>>();
  for await (const line of readLedgerFile(dir, name)) {
    let days = byOrg.get(line.org);
    if (!days) byOrg.set(line.org, (days = new Map()));
    const day = dayOf(line.at);
    let sums = days.get(day);
    if (!sums) days.set(day, (sums = { total: emptySum(), byAlias: new Map(), byKey: new Map() }));
    const settled = { costMicros: line.cost, inputTokens: line.in, outputTokens: line.out, requests: 1 };
    add(sums.total, settled);
    add(sumOf(sums.byAlias, line.alias), settled);
    add(sumOf(sums.byKey, line.keyId), settled);
  }
  return byOrg;
}

/** A UTC day as the charts label it. */
export function dayOf(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}

export function emptySum(): Sum {
  return { costMicros: 0, inputTokens: 0, outputTokens: 0, requests: 0 };
}

export function sumOf(sums: Map<string, Sum>, label: string): Sum {
  let sum = sums.get(label);
  if (!sum) sums.set(label, (sum = emptySum()));
  return sum;
}

/** Adds `other` to `sum`. */
export function add(sum: Sum, other: Sum): void {
  sum.costMicros += other.costMicros;
  sum.inputTokens += other.inputTokens;
  sum.outputTokens += other.outputTokens;
  sum.requests += other.requests;
}
