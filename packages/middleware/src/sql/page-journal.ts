import { constants } from 'node:fs';
import { open, unlink, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { checkpointInto } from './journal-checkpoint.js';
import { encodeRecord } from './journal-record.js';
import { recoverDatabase } from './journal-recovery.js';
import { segmentPath } from './journal-segments.js';
import { createExclusive, syncDirectory, writeFully } from './durable-files.js';
import type { PageOp } from './page-op.js';
import { PageSet } from './page-set.js';

/** Moments a crash test marks its kills with. */
export type JournalEvent = 'boot-checkpoint-start' | 'boot-checkpoint-end' | 'checkpoint-start' | 'checkpoint-write' | 'checkpoint-end';

export interface PageJournalOptions {
  /** A segment past this size is closed and checkpointed into the base in the background. */
  segmentBytes: number;
  onEvent?: (event: JournalEvent) => void;
  /** Read-only metrics hooks (README "Operating"): the commits each group wrote and the segment's size after it. */
  onGroupCommit?: (commits: number, segmentBytes: number) => void;
  /** A segment's size as it was folded into the base. */
  onCheckpoint?: (segmentBytes: number) => void;
}

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

interface OpenSegment {
  handle: FileHandle;
  path: string;
  bytes: number;
  /** Every page of the segment, deduplicated: what its checkpoint writes. */
  pages: PageSet;
}

/**
 * The durable side of one database file, as SQLite's own WAL works: `<file>` is the base (the same
 * whole-image file Tollgate always wrote, so existing `.sqlite` files open unchanged) and
 * `<file>-tgj.<lsn>` segments hold, per group commit, the pages SQLite wrote. `commit()` resolves once
 * the pages are fdatasync'ed; every commit queued while a write is in flight shares the next record
 * (group commit). A segment past `segmentBytes` is checkpointed into the base in the background, its pages
 * only, then deleted, while commits go on in a new segment. Opening recovers base + segments and
 * checkpoints them, so a crash at any moment loses nothing acknowledged.
 *
 * @example
 * const { journal, image } = await PageJournal.open('data/main.sqlite', { segmentBytes: 16 << 20 });
 * await journal.commit(ops, sizeAfter); // durable now
 */
export class PageJournal {
  #segment!: OpenSegment;
  #lsn: number;
  #pending = new PageSet();
  #pendingWaiters: Waiter[] = [];
  #pendingCommits = 0;
  #inflightWaiters: Waiter[] | undefined;
  #loop: Promise<void> | undefined;
  #checkpoint: Promise<void> | undefined;
  #failure: unknown;

  private constructor(
    private readonly file: string,
    private readonly options: PageJournalOptions,
    nextLsn: number,
  ) {
    this.#lsn = nextLsn;
  }

  /** Recovers the file (base + journal), folds the journal into the base and starts a new segment. */
  static async open(file: string, options: PageJournalOptions): Promise<{ journal: PageJournal; image: Uint8Array }> {
    const recovered = await recoverDatabase(file);
    const base = await open(file, constants.O_RDWR | constants.O_CREAT, 0o600);
    // A base file an earlier version made world-readable is narrowed too (README "Data files").
    await base.chmod(0o600);
    await base.close();
    if (recovered.segments.length > 0) {
      options.onEvent?.('boot-checkpoint-start');
      if (recovered.journaled.size > 0) await checkpointInto(file, recovered.journaled, () => options.onEvent?.('checkpoint-write'));
      for (const segment of recovered.segments) await unlink(segment.path);
      options.onEvent?.('boot-checkpoint-end');
    }
    await syncDirectory(dirname(file));
    const journal = new PageJournal(file, options, recovered.nextLsn);
    await journal.#startSegment();
    return { journal, image: recovered.image };
  }

  /** Whether some commit is not durable yet (a read behind it must wait, or it would show undurable data). */
  get busy(): boolean {
    return this.#pendingWaiters.length > 0 || this.#inflightWaiters !== undefined;
  }

  /** Queues one request's pages (and the file size after them); resolves once they are durable. */
  commit(ops: Iterable<PageOp>, sizeAfter: number): Promise<void> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    this.#pending.addAll(ops, sizeAfter);
    this.#pendingCommits++;
    return this.#wait();
  }

  /** Resolves once every commit queued so far is durable. */
  whenDurable(): Promise<void> {
    return this.busy ? this.#wait() : Promise.resolve();
  }

  #wait(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#pendingWaiters.push({ resolve, reject });
      this.#loop ??= this.#run().finally(() => (this.#loop = undefined));
    });
  }

  async #run(): Promise<void> {
    while (this.#pendingWaiters.length > 0) {
      const group = this.#pending;
      const waiters = (this.#inflightWaiters = this.#pendingWaiters);
      const commits = this.#pendingCommits;
      this.#pending = new PageSet();
      this.#pendingWaiters = [];
      this.#pendingCommits = 0;
      try {
        if (group.size > 0) {
          await this.#append(group);
          this.options.onGroupCommit?.(commits, this.#segment.bytes);
        }
      } catch (error) {
        // The record may be half on disk: nothing after it may be acknowledged in this segment.
        this.#failure = error;
        this.#inflightWaiters = undefined;
        for (const waiter of [...waiters, ...this.#pendingWaiters.splice(0)]) waiter.reject(error);
        return;
      }
      this.#inflightWaiters = undefined;
      for (const waiter of waiters) waiter.resolve();
      if (this.#segment.bytes >= this.options.segmentBytes && !this.#checkpoint) {
        try {
          await this.#rotate();
        } catch (error) {
          // A new segment whose name may not survive a crash: nothing queued meanwhile is acknowledged, and
          // the database reloads, as after a failed write (never an unhandled rejection, nor waiters left hanging).
          this.#failure ??= error;
          for (const waiter of this.#pendingWaiters.splice(0)) waiter.reject(error);
          return;
        }
      }
    }
  }

  async #append(group: PageSet): Promise<void> {
    const record = encodeRecord(this.#lsn, group);
    const segment = this.#segment;
    try {
      await writeFully(segment.handle, [record], segment.bytes);
      await segment.handle.datasync();
    } catch (error) {
      // Its requests are answered "could not be saved" and the database reloads from this file at once: a record
      // that reached it whole (the write went through, the fdatasync failed: EIO) was replayed there, so a refused
      // write showed up and a client's retry wrote it twice. Cut back to before it; a disk that refuses that too
      // leaves recovery to judge what it finds (a torn record ends the segment).
      await segment.handle
        .truncate(segment.bytes)
        .then(() => segment.handle.datasync())
        .catch(() => undefined);
      throw error;
    }
    this.#lsn++;
    segment.bytes += record.length;
    segment.pages.merge(group);
  }

  /** Between two groups: the full segment is closed, a new one opened, the full one checkpointed meanwhile. */
  async #rotate(): Promise<void> {
    const full = this.#segment;
    try {
      await this.#startSegment();
    } catch (error) {
      // No next segment could be made (no free inode, no file descriptor): commits go on in the full one, and
      // the rotation is tried again after the next group.
      if (this.#segment === full) return;
      throw error;
    }
    this.#checkpoint = this.#checkpointSegment(full)
      .catch((error: unknown) => {
        // The segment stays on disk and recovery replays it; the next boot checkpoints it again.
        this.#failure ??= error;
      })
      .finally(() => (this.#checkpoint = undefined));
  }

  async #startSegment(): Promise<void> {
    const path = segmentPath(this.file, this.#lsn);
    this.#segment = { handle: await createExclusive(path), path, bytes: 0, pages: new PageSet() };
    await syncDirectory(dirname(this.file)); // the name must survive before anything in it is acknowledged
  }

  async #checkpointSegment(segment: OpenSegment): Promise<void> {
    this.options.onEvent?.('checkpoint-start');
    this.options.onCheckpoint?.(segment.bytes);
    await segment.handle.close();
    if (segment.pages.size > 0) await checkpointInto(this.file, segment.pages, () => this.options.onEvent?.('checkpoint-write'));
    await unlink(segment.path);
    await syncDirectory(dirname(this.file));
    this.options.onEvent?.('checkpoint-end');
  }

  /**
   * Drains commits and the running checkpoint, then folds the last segment into the base, so a cleanly
   * closed database is one file again.
   */
  async close(): Promise<void> {
    while (this.#loop || this.#checkpoint) await Promise.allSettled([this.#loop, this.#checkpoint]);
    if (this.#failure !== undefined) {
      await this.#segment.handle.close().catch(() => undefined);
      return;
    }
    this.#failure = new Error('the journal is closed');
    await this.#checkpointSegment(this.#segment);
  }
}
