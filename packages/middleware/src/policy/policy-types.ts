import type { Principal } from '../auth/index.js';
import type { IdempotencyStore } from '../idempotency/index.js';
import type { RateLimitState } from './rate-limit-state.js';

/** A value now, or a promise of it when storage has to be waited for. */
export type Soon<T> = T | Promise<T>;

/** Token counts as metered: the provider's report when there is one, else the tokenizer's count. */
export interface Usage {
  /** Every prompt token, cached or not. */
  inputTokens: number;
  outputTokens: number;
  /** The part of `inputTokens` read from the provider's prompt cache (billed at `price.cachedInput`). */
  cachedInputTokens?: number;
  /** The part of `inputTokens` written to the provider's prompt cache (billed at `price.cacheWrite`). */
  cacheWriteTokens?: number;
}

/**
 * A model's prices in USD per million tokens. `cachedInput` and `cacheWrite` default to `input`, so a
 * price without them bills cached prompt tokens as before.
 */
export interface Price {
  input: number;
  output: number;
  cachedInput?: number;
  cacheWrite?: number;
}

/** What admission needs to know about a model request (DESIGN pipeline steps 7–9). */
export interface AdmissionRequest {
  principal: Principal;
  alias: string;
  billing: 'wallet' | 'included';
  /** USD per million tokens. */
  price: Price;
  /** Prompt tokens estimated with the tokenizer, for the tokens-per-minute window and the reservation; 0 when neither needs it (no tpm limit, an unpriced prompt). */
  estimatedInputTokens: number;
  /** The output budget the request may spend (its max_tokens after clamping). */
  maxOutputTokens: number;
  /** The id the client saw on its answer (`x-request-id` / `request-id`), written in the ledger line. */
  requestId?: string;
}

/** A request that was let in: it holds a concurrency slot until settled. */
export interface Admission {
  /**
   * Settles actual usage once (later calls return the first call's promise), appends one ledger entry
   * (with the route that answered, `provider/model`, when there was one), corrects the tokens-per-minute
   * window and releases the concurrency slot. Never throws. Resolves to the micro-dollars charged to the
   * wallet, or undefined when not known yet (a Redis store that could not be reached keeps the settlement
   * to retry it).
   */
  settle(usage: Usage, route?: string): Promise<number | undefined>;
  /**
   * settle, without a promise when the store answered at once (the memory store without a ledger file): the
   * model call's hot path then takes no microtask for it (issue 19). Same once-only rule, never throws.
   */
  settleSoon(usage: Usage, route?: string): Soon<number | undefined>;
  /** The rate-limit windows after this admission; undefined when the organization has no rpm/tpm limit. */
  readonly limits?: RateLimitState;
}

/**
 * Rate limits, billing and metering over a store. `admit` throws a ServiceError (`policy_unavailable`,
 * `rate_limited`, `wallet_empty`, `included_allowance_exhausted`, or `unauthorized` for a key revoked
 * on another instance) in that order of precedence.
 */
export interface Policy {
  admit(request: AdmissionRequest): Promise<Admission>;
  /**
   * admit, without a promise when the backend answers in process (the memory store): a refusal is thrown then,
   * not rejected. The model call's hot path takes no microtask for it (issue 19).
   */
  admitSoon(request: AdmissionRequest): Soon<Admission>;
  /** Idempotency-Key records, kept where the store keeps state (shared across instances with Redis). */
  readonly idempotency: IdempotencyStore;
  close(): Promise<void>;
}

/** An organization's usage and balances, as `gate.admin.usage(org)` reports them (DESIGN "Public API"). */
export interface UsageReport {
  /** USD. */
  wallet: number;
  /** Whether the organization has a payment method on file (included models then draw on the wallet). */
  paymentMethod: boolean;
  includedRemaining: number;
  /** ISO 8601 instant at which included tokens refill; null without an allowance. */
  resetAt: string | null;
  requests: number;
  /** Every prompt token, cached or not. */
  inputTokens: number;
  outputTokens: number;
  /** The part of `inputTokens` read from a prompt cache. */
  cachedInputTokens: number;
  /** The part of `inputTokens` written to a prompt cache. */
  cacheWriteTokens: number;
  /** USD. */
  costUsd: number;
  /** Concurrency slots held right now by requests in flight. */
  inFlight: number;
  /** Per key id, the keys that made requests (README "Per-key limits and budgets"); the memory store only, so far. */
  keys?: Record<string, KeyUsageReport>;
}

/** One key's usage; its budget, when it has one. */
export interface KeyUsageReport {
  requests: number;
  inputTokens: number;
  outputTokens: number;
  /** USD. */
  costUsd: number;
  /** USD left in the current period; null without a budget. */
  budgetRemaining: number | null;
  /** ISO 8601 instant at which the budget renews; null without a budget. */
  budgetResetAt: string | null;
  inFlight: number;
}

/** The operations the CLI's `tollgate admin …` offers, also available as `gate.admin`. */
export interface AdminOperations {
  topUp(org: string, usd: number): Promise<{ wallet: number }>;
  setPaymentMethod(org: string, hasPaymentMethod: boolean): Promise<void>;
  createKey(org: string, scopes?: ('models' | 'sql' | 'sql:read')[]): Promise<{ key: string; keyId: string }>;
  revokeKey(keyOrId: string): Promise<boolean>;
  usage(org: string): Promise<UsageReport>;
}
