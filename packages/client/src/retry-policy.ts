import { AllowanceExhaustedError, TollgateError } from './errors.js';
import { retryAfterSeconds } from './retry-after.js';

export interface RetryOptions {
  /** Retries for 429 rate_limited and 500/502/503/504 (contract §7.3 rule 1). */
  maxRetries: number;
  /** Retries for any 429 on /v1/messages*, where no header tells the reasons apart (§7.3 rule 5). */
  messagesMaxRetries: number;
  baseMs: number;
  maxMs: number;
}

/** The longest wait setTimeout can hold. */
export const MAX_WAIT_MS = 2 ** 31 - 1;

const retryableStatuses = new Set([500, 502, 503, 504]);

/**
 * Contract §7.3 as one decision: after failed attempt number `attempt` (0-based), wait how long before
 * the next one — or `undefined` to stop and raise the error.
 *
 * @example
 * retryDelay(rateLimitedError, 0, false, options, Math.random) // Retry-After × 1000 + jitter
 */
export function retryDelay(error: TollgateError, attempt: number, messagesEndpoint: boolean, options: RetryOptions, random: () => number): number | undefined {
  if (error instanceof AllowanceExhaustedError) return undefined; // rule 2: waiting does not help
  const isRateLimit = error.status === 429;
  // The same Idempotency-Key still running (after a lost connection): its answer comes once it finishes.
  // On /v1/messages the Anthropic envelope has no code: Tollgate's `x-should-retry: true` tells it apart there.
  const keyInUse = error.status === 409 && (error.code === 'idempotency_key_in_use' || error.headers['x-should-retry'] === 'true');
  if (!isRateLimit && !keyInUse && !retryableStatuses.has(error.status)) return undefined; // rule 3: 400, 401, 402, 404, 422
  const limit = messagesEndpoint && isRateLimit ? options.messagesMaxRetries : options.maxRetries;
  if (attempt >= limit) return undefined;
  const backoff = random() * Math.min(options.maxMs, options.baseMs * 2 ** attempt); // full jitter
  // Rule 1: Retry-After is a floor on every retried status (429 and 5xx alike), at least 1 s.
  const header = error.headers['retry-after'];
  let floor = 0;
  if (header !== undefined) {
    const seconds = retryAfterSeconds(header);
    floor = seconds !== undefined ? Math.max(1000, seconds * 1000) : 1000;
  }
  // A wait no timer can hold (setTimeout turns anything past 2^31-1 ms into 1 ms): give up rather than retry at once.
  if (floor > MAX_WAIT_MS) return undefined;
  // The jitter goes on top of the floor: every client told "Retry-After: 2" coming back at exactly 2 s is the
  // very storm that made the server send it (rule 1 asks for both).
  return floor + backoff;
}
