import { writeFileAtomic } from '../files/index.js';
import { Journal } from './journal.js';

/** A settlement Redis has not taken yet: the settle script's keys and arguments, as they were sent. */
export interface SpooledSettlement {
  id: string;
  args: (string | number)[];
}

type SpoolLine = ({ t: 'pending' } & SpooledSettlement) | { t: 'done'; id: string };

/**
 * The Redis store's local file of settlements that could not reach Redis (`store.pendingFile`). A
 * settlement is written here, fsynced, before it is acknowledged, and marked done once Redis took it;
 * so a process that stops or dies during an outage leaves its pending charges for its next start,
 * which sends them again (a settlement charges only by removing its admission's lease, so a repeat is a no-op).
 *
 * @example
 * const spool = await SettlementSpool.open('data/pending-settlements.jsonl');
 * for (const settlement of spool.waiting) retry(settlement);
 */
export class SettlementSpool {
  /** Settlements held here and not yet released: once none is, the file holds nothing needed and is emptied. */
  #outstanding: number;

  private constructor(
    private readonly journal: Journal<SpoolLine>,
    /** What an earlier process left unsettled. */
    readonly waiting: SpooledSettlement[],
  ) {
    this.#outstanding = waiting.length;
  }

  static async open(file: string): Promise<SettlementSpool> {
    const previous = Journal.open<SpoolLine>(file);
    const done = new Set(previous.records.flatMap((line) => (line.t === 'done' ? [line.id] : [])));
    const waiting = previous.records.flatMap((line) => (line.t === 'pending' && !done.has(line.id) ? [{ id: line.id, args: line.args }] : []));
    await previous.close();
    // Rewritten with only what still waits, so the file does not grow with every outage.
    await writeFileAtomic(file, waiting.map((settlement) => `${JSON.stringify({ t: 'pending', ...settlement })}\n`).join(''));
    return new SettlementSpool(Journal.open<SpoolLine>(file), waiting);
  }

  /** Resolves once the settlement is durable here. */
  hold(settlement: SpooledSettlement): Promise<void> {
    this.#outstanding++;
    return this.journal.append({ t: 'pending', ...settlement });
  }

  /**
   * Redis took it: a lost `done` line only means one harmless repeat at the next start. Once nothing waits, the
   * file is emptied, so it does not grow with every outage the process lives through.
   */
  async release(id: string): Promise<void> {
    await this.journal.append({ t: 'done', id });
    if (--this.#outstanding <= 0) {
      this.#outstanding = 0;
      await this.journal.empty(() => this.#outstanding === 0);
    }
  }

  close(): Promise<void> {
    return this.journal.close();
  }
}
