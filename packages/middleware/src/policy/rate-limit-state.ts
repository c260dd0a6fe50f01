import type { OrganizationConfig } from '../config/index.js';
import { RING_SLOTS } from './second-ring.js';

/** One limited window as the client is told it on a success (README "Headers on success"). */
export interface WindowState {
  limit: number;
  /** What is left of the limit after this request's admission (its token estimate counted). */
  remaining: number;
  /** Milliseconds until everything counted so far has left the window (OpenAI's "resets to its initial state"). */
  resetMs: number;
}

/** The requests- and tokens-per-minute windows after an admission; each only when the organization limits it. */
export interface RateLimitState {
  requests: WindowState | undefined;
  tokens: WindowState | undefined;
}

/**
 * The state an admission leaves, from numbers admission computed anyway (the windows' totals after
 * counting this request, and the second it counted in), so telling the client costs no extra work
 * or round trip. Undefined for an organization without a rpm or tpm limit: no headers then.
 * The newest count is in `second`, so the window is empty once that second leaves it.
 *
 * @example
 * rateLimitState(org.limits, 3, 1200, 1_700_000_000, now) // { requests: { limit: 60, remaining: 57, resetMs: 60_500 }, ... }
 */
export function rateLimitState(limits: OrganizationConfig['limits'], requestsCounted: number, tokensCounted: number, second: number, now: number): RateLimitState | undefined {
  const { rpm, tpm } = limits;
  if (rpm === undefined && tpm === undefined) return undefined;
  const resetMs = Math.max(0, (second + RING_SLOTS) * 1_000 - now);
  return {
    requests: rpm === undefined ? undefined : { limit: rpm, remaining: Math.max(0, rpm - requestsCounted), resetMs },
    tokens: tpm === undefined ? undefined : { limit: tpm, remaining: Math.max(0, tpm - tokensCounted), resetMs },
  };
}
