import type { OrganizationConfig } from '../config/index.js';
import { nextReset } from './allowance-period.js';
import { usdToMicros, type Micros } from './money.js';

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
  costMicros: Micros;
}

/**
 * Rolling windows of one organization: what rate limits count. Not durable — a minute of history.
 * Admissions are numbered by the store that keeps the windows (small integers are the cheapest keys).
 */
export interface OrgWindows {
  requestTimes: number[];
  /** Oldest first; also indexed by admission number, with their sum kept so an admission costs O(1). */
  tokenEntries: TokenEntry[];
  tokensById: Map<number, TokenEntry>;
  tokensUsed: number;
  inFlight: Set<number>;
}

export interface TokenEntry {
  at: number;
  tokens: number;
  admissionId: number;
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
    costMicros: 0,
  };
}

export function emptyWindows(): OrgWindows {
  return { requestTimes: [], tokenEntries: [], tokensById: new Map(), tokensUsed: 0, inFlight: new Set() };
}

/** Refills the allowance once its reset instant has passed. */
export function refreshAllowance(balances: OrgBalances, org: OrganizationConfig, now: number): void {
  if (!org.included || balances.resetAt === null || now < balances.resetAt) return;
  balances.includedUsed = 0;
  balances.resetAt = nextReset(org.included, now);
}
