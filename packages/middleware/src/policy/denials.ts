import { ServiceError } from '../errors/index.js';

/**
 * Every refusal admission can answer, in one table: the memory store decides in TypeScript
 * (admission-rules.ts, key-rules.ts), the Redis store in Lua (redis-scripts.ts returns a verdict word), and
 * both answer with these same errors, so a client sees the same status, code and message from either store.
 *
 * @example
 * throw denials.walletEmpty(config.recoveryUrl);
 */
export const denials = {
  /** contract §7.1: the wallet (plus overdraft, minus reservations in flight) cannot cover the worst case. */
  walletEmpty: (recoveryUrl: string) => new ServiceError('wallet_empty', 'The organization\'s wallet cannot cover this request\'s worst-case cost; add credit to continue', { recoveryUrl }),
  /** contract §7.1: the included allowance is used up and no payment method is on file. */
  allowanceExhausted: (resetAt: Date) => new ServiceError('included_allowance_exhausted', 'Included tokens are used up until the reset time; add a payment method and credit to continue now', { resetAt }),
  /** contract §7.2: Retry-After is the real wait, an integer ≥ 1. `what` names the limit when the store knows it. */
  rateLimited: (waitMs: number, what?: string) =>
    new ServiceError('rate_limited', `Rate limit reached${what ? ` for ${what}` : ''}; retry after the Retry-After interval`, { retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) }),
  /** A key whose own budget cannot hold the request (README "Per-key limits and budgets"). */
  keyBudgetSpent: (period: string, usd: number, renewsAt: number, recoveryUrl: string) =>
    new ServiceError('wallet_empty', `This API key's ${period} budget of USD ${usd} is spent (or cannot cover this request's worst case); it renews at ${new Date(renewsAt).toISOString()}`, { recoveryUrl }),
  revokedKey: () => new ServiceError('unauthorized', 'Invalid or revoked API key'),
  organizationGone: () => new ServiceError('unauthorized', 'The key\'s organization no longer exists'),
  /** DESIGN step 7: the store did not answer within `policyTimeoutMs`: fail closed, never unmetered. */
  policyUnavailable: (cause?: unknown) => new ServiceError('policy_unavailable', 'Account access could not be verified; retry in a few seconds', cause === undefined ? {} : { cause }),
  unexpectedVerdict: (verdict: string) => new ServiceError('policy_unavailable', `Unexpected policy answer ${verdict}`),
} as const;
