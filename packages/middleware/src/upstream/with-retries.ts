import type { CancelSignal } from '../http/index.js';

/** Why an attempt failed, as the retry decorator needs to know it. */
export interface AttemptFailure {
  /** Transient failures (429, 5xx, 529, reset or refused connections) are worth another attempt. */
  transient: boolean;
  /** Provider's `Retry-After`, in milliseconds, when it sent one. */
  retryAfterMs?: number;
}

export interface RetryPolicy {
  retries: number;
  baseMs: number;
  maxMs: number;
  classify(error: unknown): AttemptFailure;
  random?: () => number;
}

/**
 * Runs `attempt` until it succeeds, a failure is not transient, or `retries` are used up, waiting
 * with exponential backoff and full jitter in between (at least the provider's Retry-After, capped).
 * The last failure is rethrown for the caller to fail over or relay.
 *
 * @example
 * const response = await withRetries((n) => send(call), { retries: 2, baseMs: 250, maxMs: 4000, classify }, departure);
 */
export function withRetries<T>(attempt: (attemptNumber: number) => Promise<T>, policy: RetryPolicy, signal?: CancelSignal): Promise<T> {
  // The first attempt is the caller's own promise: no async step of its own on the path of every request (issue 19).
  let first: Promise<T>;
  try {
    first = attempt(0);
  } catch (error) {
    first = Promise.reject(error); // thrown before its first await: retried like a rejection, as before
  }
  return policy.retries === 0 ? first : first.catch((error: unknown) => retryAfter(error, attempt, policy, signal));
}

/**
 * Attempt 0 failed with `error`: another attempt after a backoff if it is worth one, else the failure. For a
 * caller that awaits its first attempt itself (withRetries without the promise and closure it costs per call).
 */
export async function retryAfter<T>(error: unknown, attempt: (attemptNumber: number) => Promise<T>, policy: RetryPolicy, signal: CancelSignal | undefined): Promise<T> {
  const random = policy.random ?? Math.random;
  for (let attemptNumber = 0; ; attemptNumber++) {
    const failure = policy.classify(error);
    if (!failure.transient || attemptNumber >= policy.retries || signal?.aborted) throw error;
    const backoff = random() * Math.min(policy.maxMs, policy.baseMs * 2 ** attemptNumber);
    await sleep(Math.min(policy.maxMs, Math.max(backoff, failure.retryAfterMs ?? 0)), signal);
    try {
      return await attempt(attemptNumber + 1);
    } catch (next) {
      error = next;
    }
  }
}

function sleep(ms: number, signal: CancelSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.once('abort', done);
    function done() {
      clearTimeout(timer);
      signal?.off('abort', done);
      resolve();
    }
  });
}
