import type { OrganizationConfig } from '../config/index.js';
import { ServiceError } from '../errors/index.js';
import type { OrgBalances, OrgWindows } from './org-state.js';
import { costMicros } from './money.js';
import type { AdmissionRequest, Usage } from './policy-types.js';

const MINUTE = 60_000;

/**
 * Rate limits, then billing (DESIGN pipeline steps 8–9), as one pure decision over an organization's
 * state. Returns the 429/402 to answer, or null to admit. A store applies it atomically.
 *
 * Tokens per minute: an admission reserves its tokenizer estimate of the prompt (output is not known
 * yet, and reserving the whole max_tokens budget would refuse most traffic long before the limit is
 * really used); settlement replaces the reservation with the actual input + output tokens. A prompt
 * larger than the whole limit is admitted alone into an empty window. Billing admits while the balance
 * is above zero; the cost is known only at settlement, so an organization can go below zero by at most
 * what its requests in flight cost, and a negative balance then blocks (DESIGN step 11).
 *
 * @example
 * const denial = admissionDenial(org, balances, windows, request, clock.now(), config.recoveryUrl);
 * if (denial) throw denial;
 */
export function admissionDenial(org: OrganizationConfig, balances: OrgBalances, windows: OrgWindows, request: AdmissionRequest, now: number, recoveryUrl: string): ServiceError | null {
  pruneWindows(windows, now);
  const { rpm, tpm, concurrency } = org.limits;
  if (rpm !== undefined && windows.requestTimes.length >= rpm) {
    return rateLimited(`requests per minute (${rpm})`, windows.requestTimes[0]! + MINUTE - now);
  }
  if (tpm !== undefined && windows.tokenEntries.length > 0) {
    const used = windows.tokensUsed;
    if (used + request.estimatedInputTokens > tpm) return rateLimited(`tokens per minute (${tpm})`, waitForTokens(windows, used + request.estimatedInputTokens - tpm, now));
  }
  if (concurrency !== undefined && windows.inFlight.size >= concurrency) {
    // A slot frees when a request ends, which cannot be predicted; one second is the contract's minimum.
    return rateLimited(`concurrent requests (${concurrency})`, 1_000);
  }
  return billingDenial(org, balances, request, recoveryUrl, now);
}

function billingDenial(org: OrganizationConfig, balances: OrgBalances, request: AdmissionRequest, recoveryUrl: string, now: number): ServiceError | null {
  const walletEmpty = () => new ServiceError('wallet_empty', 'The organization\'s wallet is empty; add credit to continue', { recoveryUrl });
  if (request.billing === 'included' && org.included) {
    if (balances.includedUsed < org.included.tokens) return null;
    // contract §7.1: with a payment method ever on file, the included model draws on the wallet.
    if (balances.paymentMethod) return balances.walletMicros > 0 ? null : walletEmpty();
    return new ServiceError('included_allowance_exhausted', 'Included tokens are used up until the reset time; add a payment method and credit to continue now', {
      resetAt: new Date(balances.resetAt ?? now),
    });
  }
  // A negative balance (an expensive last request) blocks the next one until topped up.
  return balances.walletMicros > 0 ? null : walletEmpty();
}

/**
 * Records an admitted request in the windows its organization's limits read: a window no limit reads
 * would only grow (a minute of requests at thousands per second) and cost every request its upkeep.
 */
export function recordAdmission(org: OrganizationConfig, windows: OrgWindows, admissionId: number, request: AdmissionRequest, now: number): void {
  if (org.limits.rpm !== undefined) windows.requestTimes.push(now);
  if (org.limits.tpm !== undefined) {
    const entry = { at: now, tokens: request.estimatedInputTokens, admissionId };
    windows.tokenEntries.push(entry);
    windows.tokensById.set(admissionId, entry);
    windows.tokensUsed += entry.tokens;
  }
  windows.inFlight.add(admissionId);
}

/** What a settlement charges: included tokens first (input, then output), the rest to the wallet at the model price. */
export function chargeFor(org: OrganizationConfig, balances: OrgBalances, request: Pick<AdmissionRequest, 'billing' | 'price'>, usage: Usage): { includedTokens: number; costMicros: number } {
  if (request.billing === 'included' && org.included) {
    const remaining = Math.max(0, org.included.tokens - balances.includedUsed);
    const fromInput = Math.min(remaining, usage.inputTokens);
    const fromOutput = Math.min(remaining - fromInput, usage.outputTokens);
    const overflow = { inputTokens: usage.inputTokens - fromInput, outputTokens: usage.outputTokens - fromOutput };
    // Without a payment method there is no wallet to draw on: the request that crossed the line is not billed past it.
    const cost = balances.paymentMethod ? costMicros(overflow, request.price) : 0;
    return { includedTokens: fromInput + fromOutput, costMicros: cost };
  }
  return { includedTokens: 0, costMicros: costMicros(usage, request.price) };
}

/** Applies a settlement to balances and windows: the one place money moves for usage. */
export function applySettlement(balances: OrgBalances, windows: OrgWindows, admissionId: number, usage: Usage, charge: { includedTokens: number; costMicros: number }): void {
  balances.includedUsed += charge.includedTokens;
  balances.walletMicros -= charge.costMicros;
  balances.requests += 1;
  balances.inputTokens += usage.inputTokens;
  balances.outputTokens += usage.outputTokens;
  balances.costMicros += charge.costMicros;
  releaseSlot(windows, admissionId, usage.inputTokens + usage.outputTokens);
}

/** Frees the concurrency slot and corrects the admission-time estimate with the tokens really used. */
export function releaseSlot(windows: OrgWindows, admissionId: number, tokensUsed: number): void {
  windows.inFlight.delete(admissionId);
  const entry = windows.tokensById.get(admissionId);
  if (entry) {
    windows.tokensUsed += tokensUsed - entry.tokens;
    entry.tokens = tokensUsed;
  }
}

function pruneWindows(windows: OrgWindows, now: number): void {
  const horizon = now - MINUTE;
  while (windows.requestTimes.length > 0 && windows.requestTimes[0]! <= horizon) windows.requestTimes.shift();
  while (windows.tokenEntries.length > 0 && windows.tokenEntries[0]!.at <= horizon) {
    const expired = windows.tokenEntries.shift()!;
    windows.tokensById.delete(expired.admissionId);
    windows.tokensUsed -= expired.tokens;
  }
}

function waitForTokens(windows: OrgWindows, excess: number, now: number): number {
  let freed = 0;
  for (const entry of windows.tokenEntries) {
    freed += entry.tokens;
    if (freed >= excess) return entry.at + MINUTE - now;
  }
  // Even an empty window cannot hold this prompt: it is admitted alone once the last entry expires.
  return windows.tokenEntries[windows.tokenEntries.length - 1]!.at + MINUTE - now;
}

function rateLimited(what: string, waitMs: number): ServiceError {
  return new ServiceError('rate_limited', `Rate limit reached for ${what}; retry after the Retry-After interval`, { retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) });
}
