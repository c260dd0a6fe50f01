import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { loadConfigFile, parseConfig, type ConfigInput } from '../config/index.js';
import { ServiceError } from '../errors/index.js';
import { microsToUsd } from '../policy/index.js';
import { ledgerDirectoryOf, readLedger, type LedgerLine } from '../store/index.js';
import { embeddedStoreFile } from './embedded-config.js';
import { existingDataDirectory } from './store-directory.js';

interface LedgerOptions {
  from?: string;
  to?: string;
  org?: string;
  format: 'csv' | 'jsonl';
  sum?: boolean;
}

const CSV_HEADER = 'id,at,org,key_id,alias,input_tokens,output_tokens,included_tokens,cost_usd';

/**
 * `tollgate admin ledger`: the settlements of a period from the memory store's ledger files, as CSV or
 * JSON lines, or summed per organization. It only reads the files (streamed, any size), so it is safe
 * while a server appends to them.
 */
export function registerLedgerCommand(admin: Command): void {
  admin
    .command('ledger')
    .description('export (or --sum) the settlements of a period from the ledger files')
    .option('--from <instant>', 'first instant included: ISO date (2026-11-01) or instant')
    .option('--to <instant>', 'first instant excluded: ISO date or instant')
    .option('--org <org>', 'only this organization')
    .addOption(new Option('--format <format>', 'lines as').choices(['csv', 'jsonl']).default('csv'))
    .option('--sum', 'print totals per organization instead of lines')
    .action(async (options: LedgerOptions) => {
      const { config: file, data } = admin.opts<{ config?: string; data: string }>();
      const dir = file ? ledgerDirectory(loadConfigFile(file).config) : embeddedLedgerDirectory(data);
      const filter = { ...period(instant('--from', options.from), instant('--to', options.to)), org: options.org };
      const lines = readLedger(dir, filter);
      if (options.sum) console.log(JSON.stringify(await totals(lines), null, 2));
      else await print(lines, options.format);
    });
}

function ledgerDirectory(input: ConfigInput): string {
  const { config } = parseConfig(input, process.env);
  if (config.store.kind !== 'memory' || !config.store.file) throw new ServiceError('invalid_request', 'tollgate admin ledger reads the ledger files of a memory store with a file (store.file); this config has none');
  return ledgerDirectoryOf(resolve(config.store.file));
}

/** The embedded default's ledger, found without making the embedded default (its directory, its development key): this command only reads. */
function embeddedLedgerDirectory(data: string): string {
  return ledgerDirectoryOf(resolve(embeddedStoreFile(existingDataDirectory(data, 'no ledger to read'))));
}

/** `2026-11`, `2026-11-01`, `2026-11-01T12:00[:00[.000]]` with `Z` or an offset (none: UTC, like a date alone). */
const ISO_INSTANT = /^(\d{4})-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?)?)?$/;

/**
 * An ISO date or instant, nothing else: `Date.parse` also takes "Nov 1 2026" and "1" (in the shell's time zone)
 * and rolls impossible dates over (`2026-02-30` is March 2), which would export another period than the one named.
 */
function instant(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const match = ISO_INSTANT.exec(value);
  const [, year, month, day = '01', hour = '00', minute = '00', second = '00', zone] = match ?? [];
  const calendar = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  const real = match !== null && calendar.getUTCMonth() === Number(month) - 1 && calendar.getUTCDate() === Number(day) && Number(hour) < 24 && Number(minute) < 60 && Number(second) < 60;
  const parsed = real ? Date.parse(match[4] !== undefined && zone === undefined ? `${value}Z` : value) : Number.NaN;
  if (Number.isNaN(parsed)) throw new ServiceError('invalid_request', `${flag} must be an ISO date or instant (2026-11-01, 2026-11-01T12:00:00Z; UTC unless an offset is given), not "${value}"`);
  return parsed;
}

/** [from, to) holds an instant: swapped or equal bounds would export nothing and sum as "no spend", exit 0. */
function period(from: number | undefined, to: number | undefined): { from?: number; to?: number } {
  if (from !== undefined && to !== undefined && from >= to) {
    throw new ServiceError('invalid_request', `--from must be before --to: [${new Date(from).toISOString()}, ${new Date(to).toISOString()}) holds no instant`);
  }
  return { from, to };
}

async function print(lines: AsyncIterable<LedgerLine>, format: 'csv' | 'jsonl'): Promise<void> {
  // A reader that stops early (`| head`, a pager quit) closes the pipe: the export ends there, quietly.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(0);
  });
  if (format === 'csv') await write(`${CSV_HEADER}\n`);
  for await (const line of lines) await write(format === 'csv' ? `${csvRow(line)}\n` : `${JSON.stringify(line)}\n`);
}

/** Waits for stdout to drain, so an export of any size streams instead of piling up in memory. */
function write(text: string): Promise<void> {
  return process.stdout.write(text) ? Promise.resolve() : new Promise((done) => process.stdout.once('drain', done));
}

function csvRow(line: LedgerLine): string {
  return [line.id, new Date(line.at).toISOString(), line.org, line.keyId, line.alias, line.in, line.out, line.included, usdText(line.cost)].map(csvField).join(',');
}

/** RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. */
function csvField(value: string | number): string {
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Micro-dollars as exact decimal USD (no float rounding): 1234567 → "1.234567". */
function usdText(micros: number): string {
  const sign = micros < 0 ? '-' : '';
  const digits = String(Math.abs(micros)).padStart(7, '0');
  return `${sign}${digits.slice(0, -6)}.${digits.slice(-6)}`;
}

async function totals(lines: AsyncIterable<LedgerLine>): Promise<Record<string, { requests: number; inputTokens: number; outputTokens: number; includedTokens: number; costUsd: number }>> {
  const sums: Record<string, { requests: number; inputTokens: number; outputTokens: number; includedTokens: number; costMicros: number }> = {};
  for await (const line of lines) {
    const sum = (sums[line.org] ??= { requests: 0, inputTokens: 0, outputTokens: 0, includedTokens: 0, costMicros: 0 });
    sum.requests++;
    sum.inputTokens += line.in;
    sum.outputTokens += line.out;
    sum.includedTokens += line.included;
    sum.costMicros += line.cost;
  }
  return Object.fromEntries(Object.entries(sums).map(([org, { costMicros, ...rest }]) => [org, { ...rest, costUsd: microsToUsd(costMicros) }]));
}
