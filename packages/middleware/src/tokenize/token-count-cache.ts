import { LRUCache } from 'lru-cache';

/** How much a TokenCountCache keeps: entries, and the characters of the texts kept as keys. */
export interface TokenCountCacheBounds {
  maxEntries: number;
  /** The sum of the kept keys' lengths, in UTF-16 code units (V8 stores each in one or two bytes). */
  maxKeptChars: number;
  /** A longer text is counted every time, never kept: one huge prompt must not evict every system prompt. */
  maxKeyChars: number;
}

/**
 * The default bounds: at most 4,096 texts, 2 Mi characters of them (≤ 4 MiB of strings), none longer than 16 Ki
 * characters (README "Reservations": what the tokenizer cache keeps).
 */
export const TOKEN_COUNT_CACHE_BOUNDS: TokenCountCacheBounds = { maxEntries: 4_096, maxKeptChars: 2 * 1024 * 1024, maxKeyChars: 16 * 1024 };

/**
 * Token counts of texts seen before, least recently used first out. Real traffic sends the same contents again
 * and again (a system prompt on every request, a conversation's history on every turn), and tokenizing is the
 * largest single CPU cost of a priced request's admission (issue 19).
 *
 * @example
 * const cache = new TokenCountCache(TOKEN_COUNT_CACHE_BOUNDS);
 * cache.count('You are terse.', countTokens) // tokenized once, then looked up
 */
export class TokenCountCache {
  readonly #counts: LRUCache<string, number>;
  readonly #maxKeyChars: number;

  constructor(bounds: TokenCountCacheBounds) {
    this.#maxKeyChars = bounds.maxKeyChars;
    this.#counts = new LRUCache<string, number>({ max: bounds.maxEntries, maxSize: bounds.maxKeptChars, sizeCalculation: sizeOfKey });
  }

  /** `text`'s count from the cache, or `tokenize(text)`, kept when the text is short enough. */
  count(text: string, tokenize: (text: string) => number): number {
    if (text.length > this.#maxKeyChars) return tokenize(text);
    const known = this.#counts.get(text);
    if (known !== undefined) return known;
    const counted = tokenize(text);
    this.#counts.set(text, counted);
    return counted;
  }

  /** Texts kept. */
  get size(): number {
    return this.#counts.size;
  }

  /** Characters of the texts kept. */
  get keptChars(): number {
    return this.#counts.calculatedSize;
  }
}

/** lru-cache refuses a size of 0: the empty text weighs one. */
function sizeOfKey(_count: number, text: string): number {
  return Math.max(1, text.length);
}
