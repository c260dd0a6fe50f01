import { chmod, readdir, readFile, rename, stat, truncate, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Clock } from '../runtime-clock.js';
import type { Logger } from '../logger.js';
import { Journal } from './journal.js';
import { journalEvents } from './journal-events.js';
import type { JournalRecord, LedgerLine } from './journal-record.js';
import { jsonLineChunks, readJsonLines } from './json-lines-reader.js';
import { archivedLedgerFileName, LedgerFiles } from './ledger-files.js';
import { ensurePrivateDirectory, removeTemporaryFiles, syncDirectory, writeFileAtomic } from '../files/index.js';
import { parseSnapshot, serializeSnapshot, StoreDamagedError, storeFileKind, type SnapshotState } from './store-snapshot.js';

export interface StoreFilesOptions {
  /** The store file (`store.file`): the snapshot; the journal and the ledger directory sit beside it. */
  file: string;
  clock: Clock;
  /** A snapshot is written once the journal passes this size. */
  snapshotAfterBytes?: number | undefined;
  /** Largest ledger file. */
  ledgerFileBytes?: number | undefined;
  /** Refused ledger lines held in memory before they are read back from the journal instead; 100,000 by default. */
  ledgerBacklog?: number | undefined;
  logger: Pick<Logger, 'error'> & Partial<Pick<Logger, 'info'>>;
}

/** What the files need of the in-memory state they keep durable. */
export interface DurableState {
  apply(record: JournalRecord): void;
  restore(state: SnapshotState): void;
  /** Synchronous, so it sees exactly the records applied before it. */
  capture(): SnapshotState;
}

const DEFAULT_SNAPSHOT_AFTER_BYTES = 8 * 1024 * 1024;
/** What an old-format journal becomes in the ledger directory once migrated: its settlements stay exportable. */
const MIGRATED_JOURNAL = archivedLedgerFileName('journal-before-snapshots');

interface LedgerWaiter {
  line: LedgerLine;
  done: () => void;
}

/**
 * The memory store's files: a snapshot of balances, allowances, keys, revocations and usage totals
 * (`store.file`, replaced atomically), a journal of the changes since it (`<file>.journal.<generation>`),
 * and the settlement ledger (`<file>.ledger/`, see LedgerFiles). Start-up reads the snapshot and the
 * journal only — bounded by `snapshotAfterBytes` — never the ledger.
 *
 * A settlement is acknowledged once it is fsynced in the journal *and then* in the ledger, in the same
 * order in both, so after any kill the ledger holds a prefix of the journal's settlements: start-up appends
 * to the ledger those of the journal that come after the ledger's last line. A snapshot replaces the
 * journal only once every settlement in it reached the ledger.
 *
 * An old-format journal (the store's only file before snapshots) is migrated on first start: streamed
 * (any size), moved into the ledger directory as its first file, then the snapshot written. A kill at any
 * point of it leaves either the old journal or the moved one, and the next start runs the migration again.
 *
 * @example
 * const files = await StoreFiles.open({ file: 'data/state.json', clock, logger }, store);
 * await files.settle(line);
 */
export class StoreFiles {
  #journal: Journal<JournalRecord>;
  #generation: number;
  #toLedger: LedgerWaiter[] = [];
  #ledgerDraining: Promise<void> | undefined;
  /** Completes with the last settlement handed to `settle` (journal and ledger); they complete in order. */
  #lastSettlement: Promise<void> = Promise.resolve();
  /**
   * A ledger write failed: its lines and the later ones wait in order (they are in the journal already, and no
   * snapshot drops the journal meanwhile) and are written again every second, so a disk that comes back catches
   * up by itself. Past LEDGER_BACKLOG waiting lines none is held in memory any more (#ledgerGaveUp): every second
   * the ledger is given what it lacks read back from the journal files, streamed, as a start-up does.
   */
  #ledgerBehind = false;
  #ledgerGaveUp = false;
  #ledgerRetry: NodeJS.Timeout | undefined;
  /** The id of the last settlement the ledger files took (undefined: none yet): a catch-up starts after it. */
  #lastLedgered: string | undefined;
  /** While given up: the newest settlement left out of the ledger (every one after #lastLedgered was). */
  #lastDropped: string | undefined;
  #catchingUp: Promise<void> | undefined;
  /** Whether #lastLedgered is in the journal files, once searched: attempts while the ledger stays refused skip the search. */
  #searched: { id: string | undefined; found: boolean } | undefined;
  #adminInFlight = 0;
  /**
   * Set while a snapshot that is due waits for the admin changes in flight to be applied (one captured between its
   * journal line and its application would be lost with the journal): new ones wait for it. Without it, admin
   * changes that kept overlapping (two callers in a loop) put every snapshot off, and the journal grew with them.
   */
  #adminHold: { released: Promise<void>; release: () => void } | undefined;
  #compacting: Promise<void> | undefined;
  #closed = false;

  private constructor(
    private readonly options: StoreFilesOptions & { snapshotAfterBytes: number },
    private readonly state: DurableState,
    private readonly ledger: LedgerFiles,
    journal: Journal<JournalRecord>,
    generation: number,
    lastLedgered: string | undefined,
  ) {
    this.#journal = journal;
    this.#generation = generation;
    this.#lastLedgered = lastLedgered;
  }

  static async open(options: StoreFilesOptions, state: DurableState): Promise<StoreFiles> {
    const { file } = options;
    const snapshotAfterBytes = options.snapshotAfterBytes ?? DEFAULT_SNAPSHOT_AFTER_BYTES;
    await ensurePrivateDirectory(dirname(file));
    await removeTemporaryFiles(file);
    const ledgerDir = ledgerDirectoryOf(file);
    let first: number;
    const kind = await storeFileKind(file);
    if (kind === 'snapshot') {
      const snapshot = parseSnapshot(file, await readFile(file, 'utf8'));
      state.restore(snapshot);
      first = snapshot.journal;
    } else {
      await refuseLostSnapshot(file, kind, ledgerDir);
      first = await migrate(options, state, ledgerDir);
    }

    const ledger = await LedgerFiles.open({ dir: ledgerDir, clock: options.clock, maxBytes: options.ledgerFileBytes });
    // Settlements fsynced in the journal whose ledger write a kill interrupted: the ledger holds a prefix, so those
    // after its last line (all, if that line is not in the journal), counted while the journal is replayed.
    let lastLedgered = ledger.lastLine?.id;
    let missing = 0;
    const generations = await journalGenerations(file);
    for (const generation of generations) {
      const path = journalPath(file, generation);
      if (generation < first) {
        await unlink(path); // replaced by the snapshot: a kill came between its rename and this removal
        continue;
      }
      const { completeBytes, size } = await readJsonLines(path, (records) => {
        for (const record of records as JournalRecord[]) {
          state.apply(record);
          if (record.t !== 'settle') continue;
          missing = record.id === lastLedgered ? 0 : missing + 1;
        }
      });
      if (completeBytes < size) await truncate(path, completeBytes); // a torn last line, never acknowledged
    }
    const current = Math.max(first, ...generations);
    const bytes = await stat(journalPath(file, current)).then((s) => s.size, () => 0);
    if (missing > 0) await appendMissingFromJournal(ledger, file, lastLedgered, undefined, (id) => (lastLedgered = id));

    const files = new StoreFiles({ ...options, snapshotAfterBytes }, state, ledger, Journal.forAppend(journalPath(file, current), bytes, bytes === 0), current, lastLedgered);
    files.#compactIfDue();
    return files;
  }

  /** An admin change (opening balance, top-up, payment method, key, revocation): durable, then applied. */
  async record(record: JournalRecord): Promise<void> {
    while (this.#adminHold) await this.#adminHold.released;
    this.#adminInFlight++;
    try {
      await this.#journal.append(record);
      this.state.apply(record);
    } finally {
      this.#adminInFlight--;
      this.#compactIfDue();
    }
  }

  /**
   * A settlement already applied in memory: resolves once it is durable in the journal and the ledger.
   * Never rejects; a line the disk refused is reported with what it lacks.
   */
  settle(line: LedgerLine): Promise<void> {
    const done = this.#journal.append(line).then(
      () => this.#sendToLedger(line),
      (error: unknown) => this.options.logger.error(`ledger: could not write settlement ${JSON.stringify(line)}; it is charged in memory but will be missing after a restart`, error),
    );
    this.#lastSettlement = done;
    this.#compactIfDue();
    return done;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#releaseAdmin();
    clearTimeout(this.#ledgerRetry);
    await this.#catchingUp;
    await this.#compacting;
    await this.#lastSettlement;
    await this.#journal.close();
    await this.ledger.close();
  }

  /** Called in journal order; one ledger write at a time, so a failed one is never overtaken by a later one. */
  #sendToLedger(line: LedgerLine): Promise<void> {
    if (this.#ledgerBehind) {
      // In the journal already: acknowledged now, written behind the refused lines when the ledger takes them.
      if (this.#ledgerGaveUp) this.#lastDropped = line.id;
      else if (this.#toLedger.length >= (this.options.ledgerBacklog ?? LEDGER_BACKLOG)) this.#giveUpOnLedger(line.id);
      else this.#toLedger.push({ line, done: NOTHING });
      return Promise.resolve();
    }
    return new Promise((done) => {
      this.#toLedger.push({ line, done });
      this.#ledgerDraining ??= this.#drainToLedger();
    });
  }

  async #drainToLedger(): Promise<void> {
    while (this.#toLedger.length > 0 && !this.#ledgerGaveUp) {
      const batch = this.#toLedger.splice(0);
      const refused = await this.ledger.append(batch.map((waiter) => waiter.line)).then(
        () => undefined,
        (error: unknown) => error,
      );
      if (refused === undefined) {
        this.#lastLedgered = batch.at(-1)!.line.id;
        for (const waiter of batch) waiter.done();
      } else {
        if (!this.#ledgerBehind) this.options.logger.error(`ledger: could not write ${batch.length} settlement(s) to the ledger files (first ${JSON.stringify(batch[0]!.line)}); they are charged and in the journal, and are written again every second (the next start writes them if the ledger stays refused; until then the journal is kept whole)`, refused);
        // Behind before anyone hears of it: a snapshot waiting on these settlements must not drop the journal.
        this.#ledgerBehind = true;
        for (const waiter of batch) waiter.done();
        // Ahead of the later lines, so the ledger stays a prefix of the journal's settlements (start-up's repair);
        // given up meanwhile, the catch-up reads them back from the journal with the others.
        if (!this.#ledgerGaveUp) this.#toLedger.unshift(...batch.map((waiter) => ({ line: waiter.line, done: NOTHING })));
        this.#ledgerDraining = undefined;
        if (!this.#closed && !this.#ledgerGaveUp) {
          this.#ledgerRetry = setTimeout(() => (this.#ledgerDraining ??= this.#drainToLedger()), LEDGER_RETRY_MS);
          this.#ledgerRetry.unref();
        }
        return;
      }
    }
    this.#ledgerDraining = undefined;
    if (this.#ledgerBehind && !this.#ledgerGaveUp) this.#ledgerCaughtUp();
  }

  #ledgerCaughtUp(): void {
    this.#ledgerBehind = false;
    this.options.logger.info?.('ledger: the ledger files took the settlements they had refused; writing as usual again');
    this.#compactIfDue();
  }

  /** Too many lines waited for a ledger that keeps refusing them: they are read back from the journal instead. */
  #giveUpOnLedger(lastDropped: string): void {
    this.#ledgerGaveUp = true;
    this.#lastDropped = lastDropped;
    this.#toLedger.length = 0;
    clearTimeout(this.#ledgerRetry);
    // During a catch-up (the backlog filled while it read): it goes on to the new last line itself.
    if (this.#catchingUp) return;
    this.options.logger.error(`ledger: ${this.options.ledgerBacklog ?? LEDGER_BACKLOG} settlements wait for ledger files that keep refusing them; they stay in the journal, from which they are written to the ledger once it takes them again`);
    this.#scheduleCatchUp();
  }

  #scheduleCatchUp(): void {
    if (this.#closed) return;
    this.#ledgerRetry = setTimeout(() => (this.#catchingUp ??= this.#catchUp().finally(() => (this.#catchingUp = undefined))), LEDGER_RETRY_MS);
    this.#ledgerRetry.unref();
  }

  /**
   * Given up: the ledger is given the settlements it lacks from the journal files (streamed, in order, so memory
   * holds a batch, not the backlog), up to the last one left out; those settled meanwhile queue behind as usual,
   * and once they are written too the ledger is back (#drainToLedger). Still refused: tried again in a second.
   */
  async #catchUp(): Promise<void> {
    await this.#ledgerDraining;
    while (this.#ledgerGaveUp && !this.#closed) {
      const through = this.#lastDropped!;
      // Settlements from here on queue in #toLedger, behind the ones read back.
      this.#ledgerGaveUp = false;
      try {
        const after = this.#lastLedgered;
        const searched = this.#searched;
        const known = searched !== undefined && searched.id === after ? searched.found : undefined;
        await appendMissingFromJournal(this.ledger, this.options.file, after, through, (id) => (this.#lastLedgered = id), known, (found) => (this.#searched = { id: after, found }));
      } catch {
        // Left out again, with those queued meanwhile, unless the queue filled while this read (then it is so already).
        if (!this.#ledgerGaveUp) {
          this.#ledgerGaveUp = true;
          this.#lastDropped = this.#toLedger.at(-1)?.line.id ?? through;
          this.#toLedger.length = 0;
        }
        this.#scheduleCatchUp();
        return;
      }
      // The queue may have filled while this read: #ledgerGaveUp is set again, #lastDropped moved on; go on to it.
    }
    if (this.#closed) return;
    // (Not `??= #drainToLedger()` with nothing queued: it would end before the assignment, which then stays.)
    if (this.#toLedger.length > 0) this.#ledgerDraining ??= this.#drainToLedger();
    else this.#ledgerCaughtUp();
  }

  #compactIfDue(): void {
    if (this.#journal.bytes < this.options.snapshotAfterBytes || this.#compacting || this.#ledgerBehind || this.#closed) {
      this.#releaseAdmin();
      return;
    }
    if (this.#adminInFlight > 0) {
      // Captured once those are applied (the last one's `record` comes back here); later ones wait until then.
      this.#adminHold ??= hold();
      return;
    }
    this.#compacting = this.#compact()
      .catch((error: unknown) => this.options.logger.error('store: could not write a snapshot; the journal is kept and a later one is tried', error))
      .finally(() => (this.#compacting = undefined));
    // #compact captured the state and opened the next generation before its first await: admin changes may go on.
    this.#releaseAdmin();
  }

  #releaseAdmin(): void {
    const held = this.#adminHold;
    if (held === undefined) return;
    this.#adminHold = undefined;
    held.release();
  }

  /**
   * Captures the state now (no admin change is between its journal write and its application), starts the
   * next journal generation for what follows, and once every earlier settlement is in the ledger, replaces
   * the snapshot and removes the journal it covers. A kill before the rename leaves the old snapshot and both
   * journals, replayed in order; after it, the old journal is ignored and removed.
   */
  async #compact(): Promise<void> {
    const { file } = this.options;
    const started = performance.now();
    const next = this.#generation + 1;
    const text = serializeSnapshot(next, this.options.clock.now(), this.state.capture());
    const captureMs = performance.now() - started;
    const previous = this.#journal;
    const covered = this.#generation;
    // The next generation writes only once this one's pending lines are synced: acknowledgements (and so
    // ledger writes) keep the order of `settle` calls, which is what start-up's ledger repair relies on
    // (the ledger holds a prefix of the journal's settlements). Writing both generations at once let a later
    // settlement reach the ledger ahead of an earlier one; a kill between them lost the earlier one's line.
    this.#journal = Journal.forAppend(journalPath(file, next), 0, true, previous.idle());
    this.#generation = next;
    await this.#lastSettlement;
    await previous.close();
    if (this.#ledgerBehind) return;
    await writeFileAtomic(file, text);
    for (const generation of await journalGenerations(file)) if (generation <= covered) await unlink(journalPath(file, generation));
    await syncDirectory(dirname(file));
    if (journalEvents.snapshot.hasSubscribers) journalEvents.snapshot.publish({ generation: next, captureMs, ms: performance.now() - started, snapshotBytes: text.length, journalBytes: previous.bytes });
  }
}

function hold(): { released: Promise<void>; release: () => void } {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  return { released, release };
}

/** How often refused ledger lines are written again, and how many may wait (~300 bytes each in memory). */
const LEDGER_RETRY_MS = 1_000;
const LEDGER_BACKLOG = 100_000;
/** Settlements read back from the journal are written to the ledger this many at a time. */
const CATCH_UP_BATCH = 1_000;

/**
 * Appends to the ledger the journal's settlements after `after` (the ledger's last line), up to `through` (or to
 * the journal's end): the ledger holds a prefix of the journal's settlements, so what follows its last line is
 * what it lacks, and if that line is not in the journal (an earlier generation, replaced by the snapshot), every
 * settlement in the journal is. Streamed in two passes (find `after`, then write), in batches, each reported to
 * `written` with the id of the settlement the ledger now ends with (a failure after some leaves those written).
 */
async function appendMissingFromJournal(
  ledger: LedgerFiles,
  file: string,
  after: string | undefined,
  through: string | undefined,
  written: (lastId: string) => void,
  /** Whether `after` is in the journal, if a search already told (the journal only grows while the ledger is behind). */
  known?: boolean,
  searched?: (found: boolean) => void,
): Promise<void> {
  const paths = (await journalGenerations(file)).map((generation) => journalPath(file, generation));
  let found = known ?? false;
  if (known === undefined && after !== undefined) {
    search: for (const path of paths) {
      for await (const { records } of jsonLineChunks(path)) {
        if ((records as JournalRecord[]).some((record) => record.t === 'settle' && record.id === after)) {
          found = true;
          break search;
        }
      }
    }
  }
  searched?.(found);
  let writing = !found;
  let batch: LedgerLine[] = [];
  const write = async () => {
    if (batch.length === 0) return;
    await ledger.append(batch);
    written(batch.at(-1)!.id);
    batch = [];
  };
  for (const path of paths) {
    for await (const { records } of jsonLineChunks(path)) {
      for (const record of records as JournalRecord[]) {
        if (record.t !== 'settle') continue;
        if (!writing) {
          writing = record.id === after;
          continue;
        }
        batch.push(record);
        if (record.id === through) return write();
        if (batch.length >= CATCH_UP_BATCH) await write();
      }
    }
  }
  await write();
}
const NOTHING = (): void => undefined;

/** The ledger directory of a memory store file. */
export function ledgerDirectoryOf(file: string): string {
  return `${file}.ledger`;
}

function journalPath(file: string, generation: number): string {
  return `${file}.journal.${generation}`;
}

async function journalGenerations(file: string): Promise<number[]> {
  const prefix = `${basename(file)}.journal.`;
  const names = await readdir(dirname(file));
  return names
    .filter((name) => name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length)))
    .map((name) => Number(name.slice(prefix.length)))
    .sort((a, b) => a - b);
}

/**
 * Builds the first snapshot: from an old-format journal at `file` (streamed, then moved into the ledger
 * directory), from one a killed migration already moved there, or from nothing (a new store). Answers the
 * first journal generation after it.
 */
/**
 * A store file that is not a snapshot is a fresh start or an old-format journal to migrate, unless it is damaged
 * or the store has history beside it: journal generations (written only after a snapshot) or ledger files. Then
 * the snapshot was lost (cut short, zero-filled, emptied, deleted), and starting over would reset every wallet
 * and forget created keys and revocations — a revoked key would work again. Refused, nothing changed.
 */
async function refuseLostSnapshot(file: string, kind: 'journal' | 'missing' | 'damaged', ledgerDir: string): Promise<void> {
  if (kind === 'damaged') throw new StoreDamagedError(`${file} is damaged: it is neither a Tollgate snapshot nor an old-format journal. Restore ${basename(file)} from a backup; nothing was changed`);
  const generations = await journalGenerations(file);
  const ledgerFiles = (await readdir(ledgerDir).catch(() => [] as string[])).filter((name) => name.endsWith('.jsonl') && name !== MIGRATED_JOURNAL);
  const history = generations.length > 0 ? basename(journalPath(file, generations.at(-1)!)) : ledgerFiles.length > 0 ? `${basename(ledgerDir)}/${ledgerFiles.at(-1)}` : undefined;
  if (history === undefined) return;
  const what = kind === 'missing' ? 'is missing' : 'is empty or an old-format journal';
  throw new StoreDamagedError(`${file} ${what}, but the store has history beside it (${history}), so its snapshot was lost. Restore ${basename(file)} from a backup; nothing was changed`);
}

async function migrate(options: StoreFilesOptions, state: DurableState, ledgerDir: string): Promise<number> {
  const { file } = options;
  const moved = join(ledgerDir, MIGRATED_JOURNAL);
  const kind = await storeFileKind(file);
  const movedExists = await stat(moved).then(() => true, () => false);
  if (kind === 'journal' && movedExists) throw new Error(`${file} is an old-format journal, but ${moved} already holds one that was migrated: move one of them away`);
  const source = kind === 'journal' ? file : movedExists ? moved : undefined;
  if (source) {
    const started = Date.now();
    options.logger.info?.(`store: migrating ${source} to a snapshot and ledger files (read once, streamed)`);
    let lines = 0;
    const { completeBytes, size } = await readJsonLines(source, (records) => {
      for (const record of records as JournalRecord[]) state.apply(record);
      lines += records.length;
    });
    if (completeBytes < size) await truncate(source, completeBytes); // a torn last line, never acknowledged
    if (source === file) {
      await ensurePrivateDirectory(ledgerDir, true);
      await chmod(file, 0o600);
      await rename(file, moved);
      await syncDirectory(ledgerDir);
      await syncDirectory(dirname(file));
    }
    options.logger.info?.(`store: migrated ${lines} journal lines in ${Date.now() - started} ms`);
  }
  // No journal generation exists yet: generations appear only after a snapshot.
  await writeFileAtomic(file, serializeSnapshot(1, options.clock.now(), state.capture()));
  return 1;
}
