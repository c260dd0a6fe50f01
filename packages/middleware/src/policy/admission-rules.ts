import type { OrganizationConfig } from '../config/index.js';
import type { Refusal } from './policy-backend.js';
import type { OrgBalances, OrgWindows, WindowTicket } from './org-state.js';
import { costMicros, usdToMicros, type BilledTokens, type Micros } from './money.js';
import type { AdmissionRequest, Usage } from './policy-types.js';

export type Limits = OrganizationConfig['limits'];

/**
 * Rate limits, then billing (DESIGN pipeline steps 8–9), as one pure decision over an organization's
 * state. Returns why it refuses (the Policy words it: denials.ts), or null to admit. A backend applies it atomically.
 *
 * Tokens per minute: an admission reserves its tokenizer estimate of the prompt (output is not known
 * yet, and reserving the whole max_tokens budget would refuse most traffic long before the limit is
 * really used); settlement replaces the reservation with the actual input + output tokens. A prompt
 * larger than the whole limit is admitted alone into an empty window. The windows are per-second rings
 * (second-ring.ts): fixed memory, and a Retry-After that is the real wait until enough has left them.
 * Billing reserves each request's worst-case cost (reservationMicros) against the wallet plus the
 * organization's overdraft, so concurrent requests cannot together spend what is not there (an included
 * request claims allowance tokens instead while some are unclaimed: includedClaim); settlement releases the
 * reservation and the claim and charges the real cost (README "Reservations").
 *
 * @example
 * const refusal = admissionRefusal(org, balances, windows, request, clock.now(), reservation);
 * if (refusal) return refusal;
 */
export function admissionRefusal(org: OrganizationConfig, balances: OrgBalances, windows: OrgWindows, request: AdmissionRequest, now: number, reservation: Micros): Refusal | null {
  return limitRefusal(org.limits, windows, request, now) ?? billingRefusal(org, balances, windows, request, now, reservation);
}

/** Requests per minute, tokens per minute, concurrency: the same rules for an organization and for a key. */
export function limitRefusal(limits: Limits, windows: OrgWindows, request: AdmissionRequest, now: number): Refusal | null {
  const second = Math.floor(now / 1_000);
  const { rpm, tpm, concurrency } = limits;
  // Every full window is checked, and the longest wait answered: a retry after a shorter one would be refused again.
  let refusal: RateRefusal | null = null;
  if (rpm !== undefined) {
    windows.requests.advance(second);
    const admitted = windows.requests.total;
    if (admitted >= rpm) refusal = longest(refusal, windows.requests.waitUntilFreed(admitted - rpm + 1, now), `requests per minute (${rpm})`);
  }
  if (tpm !== undefined) {
    windows.tokens.advance(second);
    const used = windows.tokens.total;
    // An empty window admits any prompt, even one larger than the whole limit (alone).
    if (used > 0 && used + request.estimatedInputTokens > tpm) refusal = longest(refusal, windows.tokens.waitUntilFreed(used + request.estimatedInputTokens - tpm, now), `tokens per minute (${tpm})`);
  }
  if (concurrency !== undefined && windows.inFlight >= concurrency) {
    // A slot frees when a request ends, which cannot be predicted; one second is the contract's minimum.
    refusal = longest(refusal, 1_000, `concurrent requests (${concurrency})`);
  }
  return refusal;
}

type RateRefusal = Refusal & { verdict: 'rate' };

/** The refusal with the longer wait: the one so far, or this limit's. */
function longest(current: RateRefusal | null, waitMs: number, what: string): RateRefusal {
  return current !== null && current.waitMs >= waitMs ? current : { verdict: 'rate', waitMs, what };
}

/** The longer of two rate refusals (an organization's and its key's): a retry after the shorter would be refused again. */
export function longerWait(first: Refusal, second: Refusal | null): Refusal {
  if (first.verdict !== 'rate' || second?.verdict !== 'rate') return first;
  return second.waitMs > first.waitMs ? second : first;
}

const WALLET_EMPTY: Refusal = { verdict: 'wallet' };

function billingRefusal(org: OrganizationConfig, balances: OrgBalances, windows: OrgWindows, request: AdmissionRequest, now: number, reservation: Micros): Refusal | null {
  const covered = canReserve(balances.walletMicros, windows.reservedMicros, usdToMicros(org.overdraft), reservation);
  if (request.billing === 'included' && org.included) {
    if (allowanceLeft(org, balances, windows, request) > 0) return null;
    // contract §7.1: with a payment method ever on file, the included model draws on the wallet — once the
    // allowance is used up, and while what is left of it is claimed by requests in flight (includedClaim).
    if (balances.paymentMethod) return covered ? null : WALLET_EMPTY;
    return { verdict: 'exhausted', resetAt: balances.resetAt ?? now };
  }
  return covered ? null : WALLET_EMPTY;
}

/**
 * The reservation rule, the same in both stores (redis-scripts.ts `canReserve`): what the wallet plus
 * the overdraft holds beyond the reservations of requests in flight must be positive and cover this
 * request's worst case. So the wallet never ends below −overdraft while settlements stay within their
 * reservations, and a wallet at or below −overdraft blocks even a free request.
 */
export function canReserve(walletMicros: Micros, reservedMicros: Micros, overdraftMicros: Micros, reservation: Micros): boolean {
  const headroom = walletMicros - reservedMicros + overdraftMicros;
  return headroom > 0 && headroom >= reservation;
}

/**
 * A request's worst-case cost, reserved at admission: its prompt estimate plus its whole output budget
 * (max_tokens, already clamped to the model's limit and to the contract §8 cap of 131,072 — that clamp is
 * the reservation's cap) at the model's price. An included-model request reserves nothing while the
 * allowance has tokens left for it (allowanceLeft): contract §7.1 admits it then whatever the wallet holds,
 * and the allowance, not the wallet, pays (README "Reservations").
 */
export function reservationMicros(org: OrganizationConfig, balances: OrgBalances, request: AdmissionRequest, windows: Pick<OrgWindows, 'claimedIncludedTokens'>): Micros {
  if (allowanceLeft(org, balances, windows, request) > 0) return 0;
  return worstCaseMicros(request);
}

/**
 * The allowance tokens an included request claims at admission, released at its settlement (README
 * "Reservations"). With a payment method, what overflows the allowance is charged to the wallet, so included
 * requests in flight together must not all count on the same tokens (each would reserve nothing, and each
 * overflow): each claims, of the tokens neither used nor claimed, its worst case (worstCaseTokens), and once
 * they are all claimed the next one reserves money like a wallet model. The one whose worst case exceeds what
 * is left claims the rest: it is the one request that may cross the line, overdrawing by its overflow. Without
 * a payment method nothing past the line is charged (chargeFor), so nothing is claimed: 0, as for a wallet
 * model. The Redis admit script claims the same (redis-scripts.ts `claim`).
 */
export function includedClaim(org: OrganizationConfig, balances: OrgBalances, windows: Pick<OrgWindows, 'claimedIncludedTokens'>, request: AdmissionRequest): number {
  if (!balances.paymentMethod) return 0;
  const left = allowanceLeft(org, balances, windows, request);
  return left > 0 ? Math.min(left, worstCaseTokens(request)) : 0;
}

/**
 * What an included request may still count on: the allowance's tokens not used yet, less (with a payment
 * method: includedClaim) those claimed by included requests in flight. 0 for a request the allowance does not cover.
 * The Redis admit script computes the same `left`.
 */
function allowanceLeft(org: OrganizationConfig, balances: OrgBalances, windows: Pick<OrgWindows, 'claimedIncludedTokens'>, request: AdmissionRequest): number {
  if (request.billing !== 'included' || !org.included) return 0;
  const unused = org.included.tokens - balances.includedUsed;
  return balances.paymentMethod ? unused - windows.claimedIncludedTokens : unused;
}

/** The worst case priced (worstCaseTokens), before the allowance is considered (the Redis admit script applies that part itself). */
export function worstCaseMicros(request: AdmissionRequest): Micros {
  return costMicros({ inputTokens: request.estimatedInputTokens, outputTokens: request.maxOutputTokens }, request.price);
}

/** The most tokens a request may use: its prompt estimate plus its whole output budget (what worstCaseMicros prices). */
export function worstCaseTokens(request: AdmissionRequest): number {
  return request.estimatedInputTokens + request.maxOutputTokens;
}

/**
 * Records an admitted request in the windows its organization's limits read (a window no limit reads
 * would cost every request its upkeep for nothing) and takes its concurrency slot, its reservation and
 * its claim on the allowance (includedClaim).
 */
export function recordAdmission(org: OrganizationConfig, windows: OrgWindows, request: AdmissionRequest, now: number, reservation: Micros, claimedIncludedTokens: number): WindowTicket {
  return recordInWindows(org.limits, windows, request, now, reservation, claimedIncludedTokens);
}

/** recordAdmission for any holder of limits: an organization, or a key (key-rules.ts; a key claims no allowance). */
export function recordInWindows(limits: Limits, windows: OrgWindows, request: AdmissionRequest, now: number, reservation: Micros, claimedIncludedTokens = 0): WindowTicket {
  const second = Math.floor(now / 1_000);
  if (limits.rpm !== undefined) windows.requests.add(second, 1);
  const tokenSecond = limits.tpm === undefined ? undefined : windows.tokens.add(second, request.estimatedInputTokens);
  windows.inFlight += 1;
  windows.reservedMicros += reservation;
  windows.claimedIncludedTokens += claimedIncludedTokens;
  return { tokenSecond, estimatedTokens: request.estimatedInputTokens, reservedMicros: reservation, claimedIncludedTokens };
}

/**
 * What a settlement charges: included tokens first (input, then output), the rest to the wallet at the
 * model price. The allowance covers plain prompt tokens before cache writes and cache reads, so what
 * overflows it is billed from the cheapest prompt tokens up (the Redis settle script does the same).
 */
export function chargeFor(org: OrganizationConfig, balances: OrgBalances, request: Pick<AdmissionRequest, 'billing' | 'price'>, usage: BilledTokens): { includedTokens: number; costMicros: number } {
  if (request.billing === 'included' && org.included) {
    const remaining = Math.max(0, org.included.tokens - balances.includedUsed);
    const fromInput = Math.min(remaining, usage.inputTokens);
    const fromOutput = Math.min(remaining - fromInput, usage.outputTokens);
    const inputOverflow = usage.inputTokens - fromInput;
    const cachedOverflow = Math.min(usage.cachedInputTokens, inputOverflow);
    const overflow = { inputTokens: inputOverflow, outputTokens: usage.outputTokens - fromOutput, cachedInputTokens: cachedOverflow, cacheWriteTokens: Math.min(usage.cacheWriteTokens, inputOverflow - cachedOverflow) };
    // Without a payment method there is no wallet to draw on: the request that crossed the line is not billed past it.
    const cost = balances.paymentMethod ? costMicros(overflow, request.price) : 0;
    return { includedTokens: fromInput + fromOutput, costMicros: cost };
  }
  return { includedTokens: 0, costMicros: costMicros(usage, request.price) };
}

/** Applies a settlement to balances and windows: the one place money moves for usage. */
export function applySettlement(balances: OrgBalances, windows: OrgWindows, ticket: WindowTicket, usage: BilledTokens, charge: { includedTokens: number; costMicros: number }): void {
  chargeBalances(balances, usage, charge);
  releaseSlot(windows, ticket, usage.inputTokens + usage.outputTokens);
}

/** Moves a settlement's money and totals (also when the journal is replayed). */
export function chargeBalances(balances: OrgBalances, usage: BilledTokens, charge: { includedTokens: number; costMicros: number }): void {
  balances.includedUsed += charge.includedTokens;
  balances.walletMicros -= charge.costMicros;
  balances.requests += 1;
  balances.inputTokens += usage.inputTokens;
  balances.outputTokens += usage.outputTokens;
  balances.cachedInputTokens += usage.cachedInputTokens;
  balances.cacheWriteTokens += usage.cacheWriteTokens;
  balances.costMicros += charge.costMicros;
}

/**
 * Frees the concurrency slot, the reservation and the claim on the allowance (settlement has charged the allowance
 * what was really used), and corrects the admission's second of the tokens-per-minute window by what was really
 * used minus what was estimated (no per-request entry is needed for that).
 */
export function releaseSlot(windows: OrgWindows, ticket: WindowTicket, tokensUsed: number): void {
  windows.inFlight -= 1;
  windows.reservedMicros -= ticket.reservedMicros;
  windows.claimedIncludedTokens -= ticket.claimedIncludedTokens;
  if (ticket.tokenSecond !== undefined) windows.tokens.correct(ticket.tokenSecond, tokensUsed - ticket.estimatedTokens);
}

