import type { DatabaseStore } from './database-store.js';
import type { PageOp } from './page-op.js';
import { PageJournal, type PageJournalOptions } from './page-journal.js';

/**
 * A file database's committed state: base file + page journal. Every load (the first boot, and every
 * restart after a runaway, a cancel or a failed write) drains the journal, folds it into the base and
 * recovers from disk, so a restart starts from exactly what the answers before it committed.
 *
 * @example
 * const store = new JournaledFileStore('data/main.sqlite', { segmentBytes: 16 << 20 });
 * const image = await store.load();
 */
export class JournaledFileStore implements DatabaseStore {
  #journal: PageJournal | undefined;

  constructor(
    private readonly file: string,
    private readonly options: PageJournalOptions,
  ) {}

  async load(): Promise<Uint8Array | null> {
    const previous = this.#journal;
    this.#journal = undefined;
    // A journal that failed a write leaves its segments for recovery to judge.
    await previous?.close().catch(() => undefined);
    const { journal, image } = await PageJournal.open(this.file, this.options);
    this.#journal = journal;
    return image.length === 0 ? null : image;
  }

  get busy(): boolean {
    return this.#journal?.busy ?? false;
  }

  commit(ops: PageOp[], sizeAfter: number): Promise<void> {
    if (!this.#journal) return Promise.reject(new Error('the database journal is not open'));
    return this.#journal.commit(ops, sizeAfter);
  }

  whenDurable(): Promise<void> {
    return this.#journal?.whenDurable() ?? Promise.resolve();
  }

  async close(): Promise<void> {
    await this.#journal?.close();
    this.#journal = undefined;
  }
}
