import type { Clock } from '../runtime-clock.js';
import { ANSWER_TTL_MS, type IdempotencyClaim, type IdempotencyStore, type StoredAnswer } from './idempotency-types.js';

/** A running claim's expiry: none (see begin). */
const UNTIL_IT_ENDS = Number.POSITIVE_INFINITY;

/**
 * One key's record from its claim to its expiry. The claim's object is the kept one: `complete` fills it in
 * where it already sits, so a keyed request allocates one record and makes one Map insertion (issue 22).
 */
class KeyRecord {
  /** Whether the request finished (its answer, if kept, in `answer`); else it is still running. */
  finished = false;
  /** Replayed since it was last put at the newest end: it gets a second chance there instead of being dropped. */
  replayed = false;
  answer: StoredAnswer | undefined = undefined;
  bytes = 0;
  constructor(
    readonly id: string,
    readonly fingerprint: string,
    readonly token: string,
    public expiresAt: number,
    readonly holding: OrgHolding,
  ) {}
}

/** What one organization's records hold of the store's bounds: its fair share decides whose answer goes (see #evict). */
class OrgHolding {
  entries = 0;
  bytes = 0;
  constructor(readonly org: string) {}
}

/**
 * Idempotency records of a single process, by organization and key, each expiring after its TTL (checked when
 * read: no timer per record). One Map holds them all in order of use — a claim is inserted at the newest end, a
 * replayed answer moved there when it next reaches the oldest end (see #evict) — bounded in entries and in bytes
 * of kept answers: past either bound the least recently used finished answer of an organization holding more than
 * its share of the bounds is dropped (#evict). A claim still running is
 * never dropped (its repeat would run a second time); met at the oldest end it becomes the newest. Synchronous: a keyed request's claim and keep cost
 * no promise and no hop; the claim is two Map lookups (the record, its organization's holding) and an insertion, the keep one lookup.
 *
 * Why a Map and not lru-cache (used until session 18): lru-cache kept finished answers only, so a claim sat in a
 * Map of its own and moved into the cache when it finished (two structures, three Map operations and an options
 * object per keep); here the record never moves. The oldest end is read with one iterator kept for the store's
 * life, not a new one per eviction: a new iterator would walk the deleted entries' holes a Map keeps at its
 * front until it rehashes (~7 µs a request once full, measured in session 17), the kept one is past them. It
 * never falls behind a live entry: every record it yields is deleted or moved to the newest end at once.
 *
 * @example
 * const store = new MemoryIdempotencyStore(systemClock, { maxEntries: 10_000, maxBytes: 64 * 1_048_576 });
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  readonly #records = new Map<string, KeyRecord>();
  /** The oldest end of #records (see above); replaced only once it has run out, when the Map was empty. */
  #oldest: Iterator<KeyRecord> = this.#records.values();
  /** Bytes of the kept answers (maxBytes). */
  #bytes = 0;
  /** The record last put at the newest end (a finished answer already there is not moved again). */
  #newest: KeyRecord | undefined = undefined;
  /** Claims' tokens: unique within the process, which is all a memory record is seen from. */
  #claims = 0;
  /** Organizations holding records now, with what they hold (one entry per organization with a record). */
  readonly #holdings = new Map<string, OrgHolding>();

  constructor(
    private readonly clock: Clock,
    private readonly bounds: { maxEntries: number; maxBytes: number },
  ) {}

  begin(org: string, key: string, fingerprint: string): IdempotencyClaim {
    const id = entryId(org, key);
    const now = this.clock.now();
    const held = this.#records.get(id);
    if (held !== undefined) {
      if (held.expiresAt > now) {
        if (held.fingerprint !== fingerprint) return { state: 'mismatch' };
        if (!held.finished) return { state: 'running' };
        held.replayed = true;
        return { state: 'done', answer: held.answer };
      }
      this.#forget(held);
    }
    const token = String(++this.#claims);
    const holding = this.#holdingOf(org);
    holding.entries++;
    // A claim is held until its request ends here (runIdempotently's finally completes or abandons it), never by
    // time: a TTL stands for an instance that died (Redis), and this one is alive. Timed by the wall clock, it
    // expired when the clock jumped forward under a running request (an NTP step, a VM resumed), and the repeat
    // ran, and was billed, a second time.
    this.#records.set(id, (this.#newest = new KeyRecord(id, fingerprint, token, UNTIL_IT_ENDS, holding)));
    if (this.#records.size > this.bounds.maxEntries) this.#evict();
    return { state: 'claimed', token };
  }

  complete(org: string, key: string, token: string, answer: StoredAnswer | undefined): void {
    const record = this.#records.get(entryId(org, key));
    if (record === undefined || record.finished || record.token !== token) return;
    record.finished = true;
    record.answer = answer;
    record.bytes = answer ? answerBytes(answer) : 0;
    record.expiresAt = this.clock.now() + ANSWER_TTL_MS;
    this.#bytes += record.bytes;
    record.holding.bytes += record.bytes;
    // A finished answer is the most recently used: one that ran while others were claimed (the long request, whose
    // client most likely gave up and retries) must not sit behind them, first to go. Once per key: no chain growth.
    if (record !== this.#newest) this.#touch(record);
    if (this.#bytes > this.bounds.maxBytes) this.#evict();
  }

  abandon(org: string, key: string, token: string): void {
    const record = this.#records.get(entryId(org, key));
    if (record !== undefined && !record.finished && record.token === token) this.#forget(record);
  }

  /** Entries held now (for tests of the bounds). */
  get size(): number {
    return this.#records.size;
  }

  /** Moves a record to the newest end (a delete and a set: see #evict for why never on every replay). */
  #touch(record: KeyRecord): void {
    this.#records.delete(record.id);
    this.#records.set(record.id, record);
    this.#newest = record;
  }

  #forget(record: KeyRecord): void {
    this.#records.delete(record.id);
    this.#bytes -= record.bytes;
    if (this.#newest === record) this.#newest = undefined;
    const { holding } = record;
    holding.bytes -= record.bytes;
    if (--holding.entries === 0) this.#holdings.delete(holding.org);
  }

  #holdingOf(org: string): OrgHolding {
    let holding = this.#holdings.get(org);
    if (holding === undefined) this.#holdings.set(org, (holding = new OrgHolding(org)));
    return holding;
  }

  /**
   * Whether the record's organization holds no more than its share of both bounds (each divided by the
   * organizations holding records): its answers are then not evicted for another's. While a bound is exceeded
   * some organization holds more than its share, so there is always one whose answers can go.
   */
  #withinShare(record: KeyRecord): boolean {
    const organizations = this.#holdings.size;
    const { entries, bytes } = record.holding;
    return entries * organizations <= this.bounds.maxEntries && bytes * organizations <= this.bounds.maxBytes;
  }

  /**
   * Drops the oldest finished answers until both bounds hold, of organizations past their share of the bounds
   * (#withinShare): one organization sending fresh keys evicts its own answers, not those of others within their
   * share, whose retries would run and be billed again. One replayed since it was last moved is moved to
   * the newest end instead (a second chance: least recently used first, to within one pass over the records).
   * Not moved on each replay: V8 leaves a deleted entry in its hash bucket's chain until the Map rehashes, so
   * deleting and setting the same key again and again grows that chain — 24 µs a replay of one key in a Map of
   * 10,000 (Node 20), against 0.2 µs for new keys; here a record moves at most once a pass. Running claims
   * count towards `maxEntries` but are only moved on: once every record left was met running, nothing can go.
   */
  #evict(): void {
    const { maxEntries, maxBytes } = this.bounds;
    // Records that cannot go (running claims, answers within their organization's share) met one after another:
    // once every record was (a whole turn of them), nothing can go. Counted in a row only: such a record is met
    // again after replayed answers had their second chance (then they go).
    let keptMet = 0;
    while ((this.#records.size > maxEntries || this.#bytes > maxBytes) && keptMet < this.#records.size) {
      const oldest = this.#nextOldest();
      const mayGo = oldest.finished && !this.#withinShare(oldest);
      if (mayGo && !oldest.replayed) {
        this.#forget(oldest);
        keptMet = 0;
        continue;
      }
      // Moved on: a record that cannot go, or a replayed answer on its second chance.
      keptMet = mayGo ? 0 : keptMet + 1;
      oldest.replayed = false;
      this.#touch(oldest);
    }
  }

  /** Only called with records held, so there is one: the kept iterator has run out only if the Map emptied. */
  #nextOldest(): KeyRecord {
    let next = this.#oldest.next();
    if (next.done) {
      this.#oldest = this.#records.values();
      next = this.#oldest.next();
    }
    return next.value as KeyRecord;
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
