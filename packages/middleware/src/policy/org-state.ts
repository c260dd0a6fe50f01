import type { OrganizationConfig } from '../config/index.js';
import { keptPeriodEnd, nextReset } from './allowance-period.js';
import { usdToMicros, type Micros } from './money.js';
import { SecondRing } from './second-ring.js';

/** Balances and totals of one organization; everything a settlement changes. */
export interface OrgBalances {
  walletMicros: Micros;
  paymentMethod: boolean;
  includedUsed: number;
  /** Epoch ms at which `includedUsed` returns to zero; null without an allowance. */
  resetAt: number | null;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  /** Parts of `inputTokens` read from / written to a prompt cache. */
  cachedInputTokens: number;
  cacheWriteTokens: number;
  costMicros: Micros;
}

/**
 * The rate-limit windows of one organization: what its limits count, in memory fixed however much
 * traffic it sees (README "Rate limits: the promise"). Not durable: a minute of history.
 */
export interface OrgWindows {
  /** Admissions per second, for requests per minute. */
  requests: SecondRing;
  /** Estimated, then settled, tokens per second of admission, for tokens per minute. */
  tokens: SecondRing;
  /** Requests admitted and not yet settled: the concurrency slots held. */
  inFlight: number;
  /** Worst-case costs reserved by requests in flight (admission-rules.ts `reservationMicros`); not durable, as no request outlives the process. */
  reservedMicros: Micros;
  /**
   * Allowance tokens claimed by included requests in flight (admission-rules.ts `includedClaim`), so requests in
   * flight together do not all count on the same tokens; like `reservedMicros`, not durable.
   */
  claimedIncludedTokens: number;
}

/** What an admission left in the windows, so its settlement can correct them. */
export interface WindowTicket {
  /** The second its token estimate counts in; undefined when no tokens-per-minute limit counted it. */
  tokenSecond: number | undefined;
  estimatedTokens: number;
  /** The worst-case cost this admission reserved, released at settlement. */
  reservedMicros: Micros;
  /** The allowance tokens this admission claimed, released at settlement (0 but for included models). */
  claimedIncludedTokens: number;
}

export function openingBalances(org: OrganizationConfig, now: number): OrgBalances {
  return {
    walletMicros: usdToMicros(org.wallet),
    paymentMethod: org.paymentMethod,
    includedUsed: 0,
    resetAt: org.included ? nextReset(org.included, now) : null,
    requests: 0,
    inputTokens: 0,
    outputTokens: 0,
    cachedInputTokens: 0,
    cacheWriteTokens: 0,
    costMicros: 0,
  };
}

export function emptyWindows(): OrgWindows {
  return { requests: new SecondRing(), tokens: new SecondRing(), inFlight: 0, reservedMicros: 0, claimedIncludedTokens: 0 };
}

/** Refills the allowance once its reset instant has passed; a reset set by a clock that ran ahead is moved back (keptPeriodEnd). */
export function refreshAllowance(balances: OrgBalances, org: OrganizationConfig, now: number): void {
  if (!org.included || balances.resetAt === null) return;
  if (now < balances.resetAt) {
    balances.resetAt = keptPeriodEnd(org.included, balances.resetAt, now);
    return;
  }
  balances.includedUsed = 0;
  balances.resetAt = nextReset(org.included, now);
}
