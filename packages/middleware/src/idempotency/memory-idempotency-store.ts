import { LRUCache } from 'lru-cache';
import type { Clock } from '../runtime-clock.js';
import { ANSWER_TTL_MS, RUNNING_TTL_MS, type IdempotencyClaim, type IdempotencyStore, type StoredAnswer } from './idempotency-types.js';

interface Running {
  fingerprint: string;
  token: string;
  expiresAt: number;
}

interface Finished {
  fingerprint: string;
  answer: StoredAnswer | undefined;
  bytes: number;
  expiresAt: number;
}

/**
 * Idempotency records of a single process, by organization and key, each expiring after its TTL. Finished
 * answers sit in a least-recently-used cache (lru-cache) bounded in entries and in bytes of kept answers: a key
 * dropped under pressure is one not seen for the longest time. A claim still running is never dropped (its
 * repeat would run a second time): claims sit apart, count towards `maxEntries`, and add at most the requests
 * in flight. Synchronous: a keyed request's claim and keep cost no promise and no hop.
 *
 * @example
 * const store = new MemoryIdempotencyStore(systemClock, { maxEntries: 10_000, maxBytes: 64 * 1_048_576 });
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  readonly #running = new Map<string, Running>();
  readonly #finished: LRUCache<string, Finished>;
  /** Claims' tokens: unique within the process, which is all a memory record is seen from. */
  #claims = 0;

  constructor(
    private readonly clock: Clock,
    private readonly bounds: { maxEntries: number; maxBytes: number },
  ) {
    // lru-cache refuses a size of 0: an answer without bytes weighs one.
    this.#finished = new LRUCache<string, Finished>({ max: bounds.maxEntries, maxSize: bounds.maxBytes, sizeCalculation: (finished) => Math.max(1, finished.bytes) });
  }

  begin(org: string, key: string, fingerprint: string): IdempotencyClaim {
    const id = entryId(org, key);
    const now = this.clock.now();
    const running = this.#running.get(id);
    if (running && running.expiresAt > now) return running.fingerprint === fingerprint ? { state: 'running' } : { state: 'mismatch' };
    const finished = this.#finished.get(id); // a hit makes it the most recently used
    if (finished && finished.expiresAt > now) return finished.fingerprint === fingerprint ? { state: 'done', answer: finished.answer } : { state: 'mismatch' };
    if (finished) this.#finished.delete(id);
    const token = String(++this.#claims);
    this.#running.set(id, { fingerprint, token, expiresAt: now + RUNNING_TTL_MS });
    this.#evict();
    return { state: 'claimed', token };
  }

  complete(org: string, key: string, token: string, answer: StoredAnswer | undefined): void {
    const id = entryId(org, key);
    const running = this.#running.get(id);
    if (!running || running.token !== token) return;
    this.#running.delete(id);
    this.#finished.set(id, { fingerprint: running.fingerprint, answer, bytes: answer ? answerBytes(answer) : 0, expiresAt: this.clock.now() + ANSWER_TTL_MS });
  }

  abandon(org: string, key: string, token: string): void {
    const id = entryId(org, key);
    if (this.#running.get(id)?.token === token) this.#running.delete(id);
  }

  /** Entries held now (for tests of the bounds). */
  get size(): number {
    return this.#running.size + this.#finished.size;
  }

  /** Running claims count towards `maxEntries` too: the least recently used answers make room for them. */
  #evict(): void {
    while (this.size > this.bounds.maxEntries && this.#finished.pop() !== undefined);
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
