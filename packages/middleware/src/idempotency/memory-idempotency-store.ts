import type { Clock } from '../runtime-clock.js';
import { ANSWER_TTL_MS, RUNNING_TTL_MS, type IdempotencyClaim, type IdempotencyStore, type StoredAnswer } from './idempotency-types.js';

interface Entry {
  fingerprint: string;
  token: string;
  answer: StoredAnswer | undefined;
  done: boolean;
  bytes: number;
  expiresAt: number;
}

/**
 * Idempotency records of a single process: a Map in least-recently-used order (a hit moves its entry to
 * the end), bounded in entries and in bytes of kept answers, each entry expiring after its TTL. Evicting
 * the oldest first means a key dropped under pressure is one not seen for the longest time. A claim still
 * running is never dropped (its repeat would run a second time): those add at most the requests in flight.
 *
 * @example
 * const store = new MemoryIdempotencyStore(systemClock, { maxEntries: 10_000, maxBytes: 64 * 1_048_576 });
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  #entries = new Map<string, Entry>();
  /**
   * Deletions since the Map was last rebuilt. A V8 Map leaves a hole per deleted entry until it grows, and
   * eviction iterates from the oldest end, over every hole: once full, each request's eviction walked
   * thousands of them (5 µs per claim and keep grew to 20). Rebuilding after as many deletions as entries
   * keeps that walk short, at one copy per `size` deletions.
   */
  #deletions = 0;
  #bytes = 0;
  /** Claims' tokens: unique within the process, which is all a memory record is seen from. */
  #claims = 0;

  constructor(
    private readonly clock: Clock,
    private readonly bounds: { maxEntries: number; maxBytes: number },
  ) {}

  async begin(org: string, key: string, fingerprint: string): Promise<IdempotencyClaim> {
    const id = entryId(org, key);
    const now = this.clock.now();
    const entry = this.#entries.get(id);
    if (entry && entry.expiresAt > now) {
      this.#entries.delete(id);
      this.#entries.set(id, entry);
      this.#deletions++;
      this.#compact();
      if (entry.fingerprint !== fingerprint) return { state: 'mismatch' };
      return entry.done ? { state: 'done', answer: entry.answer } : { state: 'running' };
    }
    if (entry) this.#remove(id, entry);
    const token = String(++this.#claims);
    this.#entries.set(id, { fingerprint, token, answer: undefined, done: false, bytes: 0, expiresAt: now + RUNNING_TTL_MS });
    this.#evict();
    this.#compact();
    return { state: 'claimed', token };
  }

  async complete(org: string, key: string, token: string, answer: StoredAnswer | undefined): Promise<void> {
    const entry = this.#entries.get(entryId(org, key));
    if (!entry || entry.token !== token) return;
    entry.done = true;
    entry.answer = answer;
    entry.bytes = answer ? answerBytes(answer) : 0;
    entry.expiresAt = this.clock.now() + ANSWER_TTL_MS;
    this.#bytes += entry.bytes;
    this.#evict();
    this.#compact();
  }

  async abandon(org: string, key: string, token: string): Promise<void> {
    const id = entryId(org, key);
    const entry = this.#entries.get(id);
    if (entry && entry.token === token) this.#remove(id, entry);
    this.#compact();
  }

  /** Entries held now (for tests of the bounds). */
  get size(): number {
    return this.#entries.size;
  }

  #evict(): void {
    for (const [id, entry] of this.#entries) {
      if (this.#entries.size <= this.bounds.maxEntries && this.#bytes <= this.bounds.maxBytes) return;
      if (entry.done) this.#remove(id, entry);
    }
  }

  #remove(id: string, entry: Entry): void {
    this.#entries.delete(id);
    this.#bytes -= entry.bytes;
    this.#deletions++;
  }

  /** Called where no iteration over the Map is under way (it replaces the Map). */
  #compact(): void {
    if (this.#deletions < this.#entries.size) return;
    this.#deletions = 0;
    this.#entries = new Map(this.#entries);
  }
}

/** Keys are per organization: the same key from two organizations names two requests. */
function entryId(org: string, key: string): string {
  return `${org}\u0000${key}`;
}

/** What an answer holds: its body and its headers' text (the memory the bound is about). */
function answerBytes(answer: StoredAnswer): number {
  let bytes = answer.body.length;
  for (const [name, value] of answer.headers) bytes += name.length + (typeof value === 'string' ? value.length : value.join('').length);
  return bytes;
}
