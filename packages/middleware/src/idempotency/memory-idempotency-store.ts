import type { Clock } from '../runtime-clock.js';
import { UseOrder, type Ordered } from './use-order.js';
import { ANSWER_TTL_MS, RUNNING_TTL_MS, type IdempotencyClaim, type IdempotencyStore, type StoredAnswer } from './idempotency-types.js';

interface Entry extends Ordered {
  id: string;
  fingerprint: string;
  token: string;
  answer: StoredAnswer | undefined;
  done: boolean;
  bytes: number;
  expiresAt: number;
}

/**
 * Idempotency records of a single process: a Map by organization and key, and their order of last use (a
 * hit makes its entry the newest), bounded in entries and in bytes of kept answers, each entry expiring
 * after its TTL. Evicting the oldest first means a key dropped under pressure is one not seen for the
 * longest time. A claim still running is never dropped (its repeat would run a second time): met at the
 * oldest end it becomes the newest, and those add at most the requests in flight. Synchronous: a keyed
 * request's claim and keep cost no promise and no hop.
 *
 * @example
 * const store = new MemoryIdempotencyStore(systemClock, { maxEntries: 10_000, maxBytes: 64 * 1_048_576 });
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  readonly #entries = new Map<string, Entry>();
  readonly #order = new UseOrder<Entry>();
  #bytes = 0;
  /** Claims' tokens: unique within the process, which is all a memory record is seen from. */
  #claims = 0;

  constructor(
    private readonly clock: Clock,
    private readonly bounds: { maxEntries: number; maxBytes: number },
  ) {}

  begin(org: string, key: string, fingerprint: string): IdempotencyClaim {
    const id = entryId(org, key);
    const now = this.clock.now();
    const entry = this.#entries.get(id);
    if (entry && entry.expiresAt > now) {
      this.#order.touch(entry);
      if (entry.fingerprint !== fingerprint) return { state: 'mismatch' };
      return entry.done ? { state: 'done', answer: entry.answer } : { state: 'running' };
    }
    if (entry) this.#remove(entry);
    const token = String(++this.#claims);
    const claimed: Entry = { lastUse: -1, id, fingerprint, token, answer: undefined, done: false, bytes: 0, expiresAt: now + RUNNING_TTL_MS };
    this.#entries.set(id, claimed);
    this.#order.touch(claimed);
    this.#evict();
    return { state: 'claimed', token };
  }

  complete(org: string, key: string, token: string, answer: StoredAnswer | undefined): void {
    const entry = this.#entries.get(entryId(org, key));
    if (!entry || entry.token !== token) return;
    entry.done = true;
    entry.answer = answer;
    entry.bytes = answer ? answerBytes(answer) : 0;
    entry.expiresAt = this.clock.now() + ANSWER_TTL_MS;
    this.#bytes += entry.bytes;
    this.#evict();
  }

  abandon(org: string, key: string, token: string): void {
    const entry = this.#entries.get(entryId(org, key));
    if (entry && entry.token === token) this.#remove(entry);
  }

  /** Entries held now (for tests of the bounds). */
  get size(): number {
    return this.#entries.size;
  }

  #evict(): void {
    // Each entry is looked at once at most: past that, only running claims are left to drop, and they stay.
    for (let budget = this.#order.size; budget > 0 && (this.#entries.size > this.bounds.maxEntries || this.#bytes > this.bounds.maxBytes); budget--) {
      const oldest = this.#order.takeOldest();
      if (!oldest) return;
      if (oldest.done) this.#remove(oldest);
      else this.#order.touch(oldest);
    }
  }

  #remove(entry: Entry): void {
    this.#entries.delete(entry.id);
    this.#order.forget(entry);
    this.#bytes -= entry.bytes;
  }
}

/** Keys are per organization: the same key from two organizations names two requests. */
function entryId(org: string, key: string): string {
  return `${org}\u0000${key}`;
}

/** What an answer holds: its body and its headers' text (the memory the bound is about). */
function answerBytes(answer: StoredAnswer): number {
  let bytes = typeof answer.body === 'string' ? stringBytes(answer.body) : answer.body.length;
  for (const [name, value] of answer.headers) bytes += name.length + (typeof value === 'string' ? value.length : value.join('').length);
  return bytes;
}

/**
 * The memory a kept JSON payload string holds: V8 keeps an ASCII string at a byte per character, any other
 * at up to two (UTF-16), whatever its UTF-8 size.
 */
function stringBytes(text: string): number {
  return Buffer.byteLength(text) === text.length ? text.length : 2 * text.length;
}
