/** A model request's answer as it was written, kept for a repeat with the same Idempotency-Key. */
export interface StoredAnswer {
  status: number;
  /** Each header once, as sent (lower-case names; a repeated header's values as a list, in order). */
  headers: [string, string | string[]][];
  /**
   * The body as written, never re-encoded: a JSON answer's payload string as sendJson wrote it (a string owns
   * its memory), a whole SSE stream's bytes; always bytes when read back from Redis.
   */
  body: Buffer | string;
}

/** What `begin` found for an organization's key. */
export type IdempotencyClaim =
  /** No request had the key: this one runs, and must `complete` or `abandon` with the token. */
  | { state: 'claimed'; token: string }
  /** A request with the key and this body is still running. */
  | { state: 'running' }
  /** A request with the key and this body finished; its answer, unless it was too large to keep. */
  | { state: 'done'; answer: StoredAnswer | undefined }
  /** The key was used with a different request. */
  | { state: 'mismatch' };

/**
 * Where Idempotency-Key records live (README "Idempotency keys"): per organization, for 24 hours after
 * the answer, bounded. The memory store keeps them in an LRU map; the Redis store in keys with a TTL in
 * the organization's slot, so every instance sees them.
 */
export interface IdempotencyStore {
  /** The memory store answers synchronously (no promise, no hop on the request's path); Redis with a promise. */
  begin(org: string, key: string, fingerprint: string): IdempotencyClaim | Promise<IdempotencyClaim>;
  /** Records the answer (undefined: finished, but too large to keep) if `token` still holds the key. */
  complete(org: string, key: string, token: string, answer: StoredAnswer | undefined): void | Promise<void>;
  /** Frees the key (the request was refused or failed before a whole answer) if `token` still holds it. */
  abandon(org: string, key: string, token: string): void | Promise<void>;
}

/** How long an answer is replayed. */
export const ANSWER_TTL_MS = 24 * 60 * 60_000;
/**
 * How long a running claim holds its key if its instance dies before completing, at the least: the stores are given
 * longer when a request may run longer (config longestRequestMs, from relay.attemptDeadlineMs).
 */
export const RUNNING_TTL_MS = 15 * 60_000;
