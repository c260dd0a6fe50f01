import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { loadConfigFile, parseConfig, type ConfigInput } from '../config/index.js';
import { ServiceError } from '../errors/index.js';
import { microsToUsd } from '../policy/index.js';
import { ledgerDirectoryOf, readLedger, type LedgerLine } from '../store/index.js';
import { embeddedConfig } from './embedded-config.js';

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
      const dir = ledgerDirectory(file ? loadConfigFile(file).config : embeddedConfig(data).config);
      const filter = { from: instant('--from', options.from), to: instant('--to', options.to), org: options.org };
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

function instant(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Date.parse(value);
  if (Number.isNaN(parsed)) throw new ServiceError('invalid_request', `${flag} must be an ISO date or instant (2026-11-01, 2026-11-01T12:00:00Z), not "${value}"`);
  return parsed;
}

async function print(lines: AsyncIterable<LedgerLine>, format: 'csv' | 'jsonl'): Promise<void> {
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
