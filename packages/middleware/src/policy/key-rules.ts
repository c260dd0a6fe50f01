import type { Principal } from '../auth/index.js';
import type { ServiceError } from '../errors/index.js';
import { denials } from './denials.js';
import type { Refusal } from './policy-backend.js';
import { limitRefusal, recordInWindows, releaseSlot } from './admission-rules.js';
import { keptPeriodEnd, nextReset } from './allowance-period.js';
import { microsToUsd, usdToMicros, type Micros } from './money.js';
import { emptyWindows, type OrgWindows, type WindowTicket } from './org-state.js';
import type { AdmissionRequest, KeyUsageReport, Usage } from './policy-types.js';

/**
 * One key's own state (README "Per-key limits and budgets"): its rate-limit windows and reservations (the
 * organization's kind), its spend in the current budget period, and its totals for the usage report.
 */
export interface KeyState {
  windows: OrgWindows;
  spentMicros: Micros;
  /** Epoch ms at which the spend returns to zero; null without a budget. */
  budgetResetAt: number | null;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  costMicros: Micros;
}

const NO_LIMITS = {};
const periodAdjective = { day: 'daily', week: 'weekly', month: 'monthly' } as const;

export function emptyKeyState(): KeyState {
  return { windows: emptyWindows(), spentMicros: 0, budgetResetAt: null, requests: 0, inputTokens: 0, outputTokens: 0, costMicros: 0 };
}

/**
 * Starts a new budget period once the current one has ended (periods are UTC calendar days, ISO weeks, months);
 * a renewal set by a clock that ran ahead is moved back to the current period's end (keptPeriodEnd).
 */
export function refreshBudget(state: KeyState, key: Pick<Principal, 'budget'>, now: number): void {
  if (!key.budget) return;
  if (state.budgetResetAt !== null && now < state.budgetResetAt) {
    state.budgetResetAt = keptPeriodEnd(key.budget, state.budgetResetAt, now);
    return;
  }
  state.spentMicros = 0;
  state.budgetResetAt = nextReset({ period: key.budget.period }, now);
}

/**
 * A key's limits and budget, checked after its organization's: its limits answer `rate_limited` as the
 * organization's do; a budget that cannot hold the request's worst case (the same reservation as the
 * wallet's) answers `402 wallet_empty` with the recovery URL, its message naming the key's budget.
 */
export function keyRefusal(key: Principal, state: KeyState, request: AdmissionRequest, now: number, reservation: Micros): Refusal | null {
  if (key.limits) {
    const limited = limitRefusal(key.limits, state.windows, request, now);
    if (limited) return limited;
  }
  if (!key.budget) return null;
  const headroom = usdToMicros(key.budget.usd) - state.spentMicros - state.windows.reservedMicros;
  if (headroom > 0 && headroom >= reservation) return null;
  return { verdict: 'budget', renewsAt: state.budgetResetAt ?? now };
}

/** The one answer for a key whose budget cannot hold a request, in both stores (worded by the Policy). */
export function keyBudgetSpent(budget: NonNullable<Principal['budget']>, renewsAt: number, recoveryUrl: string): ServiceError {
  return denials.keyBudgetSpent(periodAdjective[budget.period], budget.usd, renewsAt, recoveryUrl);
}

export function recordKeyAdmission(key: Principal, state: KeyState, request: AdmissionRequest, now: number, reservation: Micros): WindowTicket {
  return recordInWindows(key.limits ?? NO_LIMITS, state.windows, request, now, reservation);
}

/** A settlement's share for the key: its windows and reservation released, its spend and totals counted. */
export function settleKey(state: KeyState, ticket: WindowTicket | undefined, usage: Usage, costMicros: Micros): void {
  if (ticket) releaseSlot(state.windows, ticket, usage.inputTokens + usage.outputTokens);
  if (usage.inputTokens === 0 && usage.outputTokens === 0) return;
  state.spentMicros += costMicros;
  state.requests += 1;
  state.inputTokens += usage.inputTokens;
  state.outputTokens += usage.outputTokens;
  state.costMicros += costMicros;
}

export function keyUsageReport(key: Pick<Principal, 'budget'> | undefined, state: KeyState): KeyUsageReport {
  return {
    requests: state.requests,
    inputTokens: state.inputTokens,
    outputTokens: state.outputTokens,
    costUsd: microsToUsd(state.costMicros),
    budgetRemaining: key?.budget ? microsToUsd(Math.max(0, usdToMicros(key.budget.usd) - state.spentMicros)) : null,
    budgetResetAt: key?.budget && state.budgetResetAt !== null ? new Date(state.budgetResetAt).toISOString() : null,
    inFlight: state.windows.inFlight,
  };
}
