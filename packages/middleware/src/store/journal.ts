import { readFileSync, truncateSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { appendFully, ensurePrivateDir, openPrivate } from '../files/index.js';
import { syncDirectory } from '../files/index.js';
import { journalEvents } from './journal-events.js';
import { StoreDamagedError } from './store-snapshot.js';

/**
 * An append-only JSON-lines file with group commit: appends that arrive while a write is in flight are
 * written and fsynced together, and each append resolves only once its line is durable. A line torn by a
 * crash (the last one, unterminated) is dropped on open — it was never acknowledged.
 *
 * @example
 * const journal = Journal.open('data/state.json');
 * for (const record of journal.records) replay(record);
 * await journal.append({ t: 'topup', org: 'acme', micros: 5_000_000 });
 */
export class Journal<Record> {
  readonly records: Record[];
  #handle: Promise<FileHandle>;
  #pending: { line: string; resolve: () => void; reject: (error: unknown) => void }[] = [];
  #flushing: Promise<void> | undefined;
  #bytes: number;
  /** The file's length once every acknowledged line is in: where a refused batch's fragment is cut off. */
  #size: number;
  /** A batch was refused: part of it may be in the file, and must be cut before anything is appended after it. */
  #torn = false;

  private constructor(
    private readonly file: string,
    records: Record[],
    bytes: number,
    created = false,
    after?: Promise<void>,
  ) {
    this.records = records;
    this.#bytes = bytes;
    this.#size = bytes;
    const handle = after ? after.then(() => openPrivate(file, 'a')) : openPrivate(file, 'a');
    // A new file's directory entry is made durable before the first append is acknowledged.
    this.#handle = created ? handle.then(async (h) => (await syncDirectory(dirname(file)), h)) : handle;
  }

  /**
   * A journal appended to without being read: a file `readJsonLines` already replayed (`bytes` long), or
   * with `created`, a new one. With `after` (another journal's `idle()`), nothing is written before that
   * journal's pending lines are durable, so appends complete in the order they were made across both.
   */
  static forAppend<Record>(file: string, bytes: number, created = false, after?: Promise<void>): Journal<Record> {
    return new Journal<Record>(file, [], bytes, created, after);
  }

  /** Resolves once every line appended so far was written and synced (or refused); never rejects. */
  async idle(): Promise<void> {
    while (this.#flushing) await this.#flushing;
  }

  /** Bytes written or waiting to be written: what a store compares with its snapshot threshold. */
  get bytes(): number {
    return this.#bytes;
  }

  static open<Record>(file: string): Journal<Record> {
    ensurePrivateDir(dirname(file));
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const complete = text.endsWith('\n') ? text : text.slice(0, text.lastIndexOf('\n') + 1);
    if (complete.length !== text.length) truncateSync(file, Buffer.byteLength(complete));
    const records = complete.split('\n').flatMap((line, index) => (line === '' ? [] : [parseLine<Record>(file, line, index + 1)]));
    return new Journal<Record>(file, records, Buffer.byteLength(complete));
  }

  append(record: Record): Promise<void> {
    return new Promise((resolve, reject) => {
      const line = `${JSON.stringify(record)}\n`;
      this.#bytes += line.length;
      this.#pending.push({ line, resolve, reject });
      this.#flushing ??= this.#flush();
    });
  }

  /**
   * Empties the file once every line appended so far is written, if `spent()` still says its lines are all spent
   * then (the Redis store's pending settlements once Redis took each one: a settlement held while this waited keeps
   * the file whole). Appends made meanwhile are written after it.
   */
  async empty(spent: () => boolean): Promise<void> {
    await this.idle();
    if (this.#flushing || this.#pending.length > 0 || !spent()) return;
    const emptied = this.#bytes;
    const emptying = (async () => {
      try {
        const handle = await this.#handle;
        await handle.truncate(0);
        await handle.datasync();
        this.#bytes -= emptied;
        this.#size = 0;
        this.#torn = false;
      } catch {
        // Kept whole: the next start reads it and keeps only what still waits.
      }
      this.#flushing = this.#pending.length > 0 ? this.#flush() : undefined;
    })();
    this.#flushing = emptying;
    await emptying;
  }

  async close(): Promise<void> {
    while (this.#flushing) await this.#flushing;
    await (await this.#handle).close();
  }

  async #flush(): Promise<void> {
    try {
      while (this.#pending.length > 0) {
        const batch = this.#pending.splice(0);
        const text = batch.map((entry) => entry.line).join('');
        try {
          const handle = await this.#handle;
          const started = performance.now();
          // A filling disk takes a write in part before it refuses it (ENOSPC): the refused lines' fragment stays
          // in the file, and a line appended after it would make one line that is not JSON, a journal the next
          // start refuses as damaged. Cut back to the acknowledged lines first (a torn last line alone is dropped
          // on open, so a crash before this cut loses nothing acknowledged either).
          if (this.#torn) {
            await handle.truncate(this.#size);
            this.#torn = false;
          }
          await appendFully(handle, text);
          await handle.datasync();
          this.#size += Buffer.byteLength(text);
          if (journalEvents.journalCommit.hasSubscribers) journalEvents.journalCommit.publish({ file: this.file, lines: batch.length, bytes: text.length, ms: performance.now() - started });
          for (const entry of batch) entry.resolve();
        } catch (error) {
          this.#torn = true;
          this.#bytes -= text.length;
          for (const entry of batch) entry.reject(error);
        }
      }
    } finally {
      this.#flushing = undefined;
    }
  }
}

/** A complete line that is not JSON was not torn by a kill (that is only ever the last, cut above): the file is damaged. */
function parseLine<Record>(file: string, line: string, number: number): Record {
  try {
    return JSON.parse(line) as Record;
  } catch {
    throw new StoreDamagedError(`${file}: line ${number} is not JSON (${JSON.stringify(line.slice(0, 80))}); the file is damaged. Restore it from a backup, or move it away to drop the settlements it holds`);
  }
}
