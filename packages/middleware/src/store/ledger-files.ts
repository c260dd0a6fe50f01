import { open, readdir, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { systemClock, type Clock } from '../runtime-clock.js';
import { jsonLineChunks } from './json-lines-reader.js';
import type { LedgerLine } from './journal-record.js';
import { journalEvents } from './journal-events.js';
import { appendFully, ensurePrivateDirectory, PRIVATE_FILE_MODE, syncDirectory } from '../files/index.js';

export type { LedgerLine } from './journal-record.js';

export interface LedgerFilesOptions {
  dir: string;
  /** A file is closed and the next one started once it would pass this size; 64 MiB by default. */
  maxBytes?: number;
  /** Decides the UTC day (a new file each day) and the names of new files. */
  clock?: Clock;
}

const DAY = 86_400_000;
const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
/** `<UTC instant the file was started>-<sequence>[-<label>].jsonl`: names sort in the order files were started. */
const FILE_NAME = /^(\d{8}T\d{9}Z)-(\d{4,})(-[a-z0-9.-]+)?\.jsonl$/;

interface CurrentFile {
  name: string;
  day: number;
  bytes: number;
  handle: FileHandle | undefined;
}

interface PendingAppend {
  text: string;
  lines: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * The settlement ledger: append-only JSON-lines files in one directory (0700, files 0600), a new file each
 * UTC day or once a file reaches `maxBytes`. Appends that arrive while a write is in flight are written and
 * fdatasynced together (group commit); each resolves only once its lines are durable. Nothing here is read
 * at start-up except the last line of the newest file: a line torn by a crash is cut off there, so the next
 * append starts on a line of its own.
 *
 * @example
 * const ledger = await LedgerFiles.open({ dir: 'data/state.json.ledger' });
 * await ledger.append([{ t: 'settle', id, at: Date.now(), org: 'acme', keyId, alias: 'gpt-4o', in: 12, out: 40, included: 0, cost: 430 }]);
 * await ledger.close();
 */
export class LedgerFiles {
  #current: CurrentFile | undefined;
  #pending: PendingAppend[] = [];
  #flushing: Promise<void> | undefined;
  #closed = false;
  /**
   * The newest instant the ledger holds: the newest file's start and every line's `at`. A new file is named no
   * earlier (see #fileFor), so names sort in the order files were written, whatever the clock did.
   */
  #latest: number;

  private constructor(
    private readonly dir: string,
    private readonly maxBytes: number,
    private readonly clock: Clock,
    current: CurrentFile | undefined,
    /** The last complete settlement line on file when opened, if the newest file ends with one. */
    readonly lastLine: LedgerLine | undefined,
    latest: number,
  ) {
    this.#current = current;
    this.#latest = latest;
  }

  static async open(options: LedgerFilesOptions): Promise<LedgerFiles> {
    const clock = options.clock ?? systemClock;
    const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    if (!Number.isInteger(maxBytes) || maxBytes <= 0) throw new RangeError(`ledger maxBytes must be a positive integer, not ${maxBytes}`);
    await ensurePrivateDirectory(options.dir, true);
    const names = await ledgerFileNames(options.dir);
    let current: CurrentFile | undefined;
    let lastLine: LedgerLine | undefined;
    // Newest first: an empty newest file (a kill right after a rotation) says nothing about the last line.
    for (let i = names.length - 1; i >= 0 && lastLine === undefined; i--) {
      const name = names[i]!;
      const { bytes, last } = await cutTornTail(join(options.dir, name));
      if (i === names.length - 1 && FILE_NAME.exec(name)![3] === undefined) current = { name, day: dayOf(startOf(name)), bytes, handle: undefined };
      if (last !== undefined) lastLine = isSettlement(last) ? last : undefined;
      if (bytes > 0) break;
    }
    const newest = names.at(-1);
    return new LedgerFiles(options.dir, maxBytes, clock, current, lastLine, Math.max(newest === undefined ? -Infinity : startOf(newest), lastLine?.at ?? -Infinity));
  }

  /** Resolves once every line is written and fdatasynced. */
  append(lines: readonly LedgerLine[]): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('the ledger is closed'));
    if (lines.length === 0) return Promise.resolve();
    let text = '';
    for (const line of lines) {
      text += `${JSON.stringify(line)}\n`;
      if (line.at > this.#latest) this.#latest = line.at;
    }
    return new Promise((resolve, reject) => {
      this.#pending.push({ text, lines: lines.length, resolve, reject });
      this.#flushing ??= this.#flush();
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    while (this.#flushing) await this.#flushing;
    await this.#current?.handle?.close();
    this.#current = undefined;
  }

  async #flush(): Promise<void> {
    try {
      while (this.#pending.length > 0) {
        const batch = this.#pending.splice(0);
        let file: CurrentFile | undefined;
        try {
          const started = performance.now();
          let text = '';
          let lines = 0;
          for (const entry of batch) {
            text += entry.text;
            lines += entry.lines;
          }
          const bytes = Buffer.byteLength(text);
          file = await this.#fileFor(bytes);
          await appendFully(file.handle!, text);
          await file.handle!.datasync();
          file.bytes += bytes;
          if (journalEvents.ledgerCommit.hasSubscribers) journalEvents.ledgerCommit.publish({ file: file.name, lines, bytes, ms: performance.now() - started });
          for (const entry of batch) entry.resolve();
        } catch (error) {
          // A write cut short may have left part of the batch: cut back to the last whole append, so the same lines
          // written again (StoreFiles retries) neither tear a line nor repeat one. Failing that, a new file follows
          // (a torn last line of a file is skipped by every reader).
          const cut = file;
          if (cut?.handle) {
            await cut.handle.truncate(cut.bytes).catch(() => {
              if (this.#current !== cut) return;
              this.#current = undefined;
              void cut.handle?.close().catch(() => undefined);
            });
          }
          for (const entry of batch) entry.reject(error);
        }
      }
    } finally {
      this.#flushing = undefined;
    }
  }

  /**
   * The file the next `bytes` go to: the current one, or a new one once a later day began or it is full. A clock
   * stepped back (an NTP correction) neither starts a file nor names one before the newest: named by the clock,
   * the new file sorted before the one last written, so a start took that one's last line for the ledger's last
   * (store-files.ts) and appended every settlement written since a second time, and a period export skipped lines.
   */
  async #fileFor(bytes: number): Promise<CurrentFile> {
    const now = this.clock.now();
    const current = this.#current;
    if (current && dayOf(now) <= current.day && (current.bytes === 0 || current.bytes + bytes <= this.maxBytes)) {
      current.handle ??= await open(join(this.dir, current.name), 'a', PRIVATE_FILE_MODE);
      return current;
    }
    if (current) {
      this.#current = undefined;
      await current.handle?.close();
    }
    const next = await createLedgerFile(this.dir, Math.max(now, this.#latest));
    this.#current = next;
    if (journalEvents.ledgerRotate.hasSubscribers) journalEvents.ledgerRotate.publish({ file: next.name, previousBytes: current?.bytes ?? 0 });
    return next;
  }
}

/**
 * The settlement lines of a ledger directory, oldest file first, those whose `at` lies in [from, to) and,
 * with `org`, of that organization. Reads the files as a stream (any size); an unterminated last line of a
 * file (an append in progress, or torn by a crash) is skipped. Safe while a server appends.
 *
 * @example
 * for await (const line of readLedger('data/state.json.ledger', { from: Date.parse('2026-11-01'), org: 'acme' })) total += line.cost;
 */
export async function* readLedger(dir: string, filter: { from?: number; to?: number; org?: string }): AsyncIterable<LedgerLine> {
  const from = filter.from ?? -Infinity;
  const to = filter.to ?? Infinity;
  const names = await ledgerFiles(dir);
  for (let i = 0; i < names.length; i++) {
    // A file started after `to` is still read: start-up appends the settlements a kill kept out of the ledger to
    // the file current then (store-files.ts), however long after their `at`.
    if (!ledgerFileReaches(names, i, from)) continue;
    for await (const { records } of jsonLineChunks(join(dir, names[i]!))) {
      for (const record of records) {
        if (!isSettlement(record) || record.at < from || record.at >= to) continue;
        if (filter.org !== undefined && record.org !== filter.org) continue;
        yield record;
      }
    }
  }
}

/**
 * Whether the `i`-th of `names` (ledgerFiles, oldest first) may hold a line whose `at` is `from` or later. A file
 * holds lines appended before the next file was started; a line's `at` is its settlement's instant, a moment
 * before its append, so a file is ruled out only with an hour's margin.
 */
export function ledgerFileReaches(names: readonly string[], i: number, from: number): boolean {
  const nextStart = i + 1 < names.length ? startOf(names[i + 1]!) : Infinity;
  return nextStart >= from - SKIP_MARGIN;
}

/** The ledger files of a directory, oldest first (none when it does not exist): for a reader that starts from the newest. */
export async function ledgerFiles(dir: string): Promise<string[]> {
  return ledgerFileNames(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
}

/** The settlement lines of one of `ledgerFiles` (of `org`, if given), in the order they were appended. */
export async function* readLedgerFile(dir: string, name: string, org?: string): AsyncIterable<LedgerLine> {
  for await (const { records } of jsonLineChunks(join(dir, name))) {
    for (const record of records) if (isSettlement(record) && (org === undefined || record.org === org)) yield record;
  }
}

/** Name for a file placed in a ledger directory by hand or by a migration: sorts before every file the ledger starts. */
export function archivedLedgerFileName(label: string): string {
  if (!/^[a-z0-9.-]+$/.test(label)) throw new RangeError(`ledger label must be lowercase letters, digits, dots and dashes: ${label}`);
  return `${stampOf(0)}-0000-${label}.jsonl`;
}

const SKIP_MARGIN = 3_600_000;

function isSettlement(record: unknown): record is LedgerLine {
  return typeof record === 'object' && record !== null && (record as { t?: unknown }).t === 'settle' && typeof (record as { at?: unknown }).at === 'number';
}

async function ledgerFileNames(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((name) => FILE_NAME.test(name)).sort();
}

/** A new file, created exclusively (never appending to another's), its directory entry made durable before use. */
async function createLedgerFile(dir: string, now: number): Promise<CurrentFile> {
  for (let sequence = 1; ; sequence++) {
    const name = `${stampOf(now)}-${String(sequence).padStart(4, '0')}.jsonl`;
    try {
      const handle = await open(join(dir, name), 'wx', PRIVATE_FILE_MODE);
      await syncDirectory(dir);
      return { name, day: dayOf(now), bytes: 0, handle };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/**
 * Cuts an unterminated last line (an append torn by a kill, never acknowledged) off a ledger file and
 * answers its remaining size and last complete line. Reads only the file's end.
 */
async function cutTornTail(file: string): Promise<{ bytes: number; last: unknown }> {
  const handle = await open(file, 'r+');
  try {
    const { size } = await handle.stat();
    const complete = (await lastNewlineBefore(handle, size)) + 1;
    if (complete < size) {
      await handle.truncate(complete);
      await handle.datasync();
    }
    if (complete === 0) return { bytes: 0, last: undefined };
    const start = (await lastNewlineBefore(handle, complete - 1)) + 1;
    const line = Buffer.alloc(complete - 1 - start);
    await handle.read(line, 0, line.length, start);
    try {
      return { bytes: complete, last: JSON.parse(line.toString('utf8')) as unknown };
    } catch {
      return { bytes: complete, last: undefined };
    }
  } finally {
    await handle.close();
  }
}

/** Position of the last newline before `end`, or -1; reads backwards a block at a time. */
async function lastNewlineBefore(handle: FileHandle, end: number): Promise<number> {
  const block = Buffer.alloc(64 * 1024);
  for (let blockEnd = end; blockEnd > 0; ) {
    const blockStart = Math.max(0, blockEnd - block.length);
    const { bytesRead } = await handle.read(block, 0, blockEnd - blockStart, blockStart);
    const found = block.subarray(0, bytesRead).lastIndexOf(0x0a);
    if (found !== -1) return blockStart + found;
    blockEnd = blockStart;
  }
  return -1;
}

function dayOf(instant: number): number {
  return Math.floor(instant / DAY);
}

/** 20261123T201504123Z: fixed width, so names sort as instants do. */
function stampOf(instant: number): string {
  return new Date(instant).toISOString().replace(/[-:.]/g, '');
}

function startOf(name: string): number {
  const stamp = FILE_NAME.exec(name)![1]!;
  return Date.parse(`${stamp.slice(0, 4)}-${stamp.slice(4, 6)}-${stamp.slice(6, 8)}T${stamp.slice(9, 11)}:${stamp.slice(11, 13)}:${stamp.slice(13, 15)}.${stamp.slice(15, 18)}Z`);
}
