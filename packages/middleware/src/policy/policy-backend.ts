import type { OrganizationConfig } from '../config/index.js';
import type { IdempotencyStore } from '../idempotency/index.js';
import type { RateLimitState } from './rate-limit-state.js';
import type { AdmissionRequest, Soon, Usage } from './policy-types.js';

/**
 * Why a backend refused an admission. The backend only decides (in TypeScript for an in-process state,
 * in Lua for Redis); the Policy words every refusal once (denials.ts), so both stores answer the same.
 */
export type Refusal =
  | { verdict: 'rate'; waitMs: number; what?: string }
  | { verdict: 'wallet' }
  | { verdict: 'budget'; renewsAt: number }
  | { verdict: 'exhausted'; resetAt: number }
  | { verdict: 'revoked' }
  | { verdict: 'gone' }
  | { verdict: 'unexpected'; answer: string };

/**
 * An admission let in: the backend's own ticket (what its settlement needs) marked `ok`, with the
 * windows to tell the client. The ticket is the answer itself, so admitting allocates nothing more.
 */
export type Admitted<Ticket> = Ticket & { readonly verdict: 'ok'; readonly limits: RateLimitState | undefined };

export type AdmitAnswer<Ticket> = Admitted<Ticket> | Refusal;

/** Settlements a backend could not deliver (its storage unreachable), kept and sent again by the Policy. */
export interface SettlementRetries<Pending extends { id: string }> {
  /** Left by an earlier process (a pending file), to send again once storage answers. */
  readonly waiting: readonly Pending[];
  /** Sends one again; rejects while storage is still unreachable. */
  resend(pending: Pending): Promise<unknown>;
  /** Where a pending settlement is made durable before it is acknowledged, when the store has such a file. */
  readonly spool?: PendingSpool<Pending>;
}

/**
 * Where the Policy reports what it could not do (the Logger's `error`, declared here so that policy/ does
 * not import logger.ts, which imports observe/, which reads policy/'s types).
 */
export interface ErrorReport {
  error(message: string, error?: unknown): void;
}

/** A local file of pending settlements (store/settlement-spool.ts): held before acknowledged, released once delivered. */
export interface PendingSpool<Pending> {
  hold(pending: Pending): Promise<void>;
  release(id: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Storage under the Policy (policy.ts): it keeps state and changes it atomically, nothing more. The
 * admission rules run inside one atomic step, so a backend either runs policy/'s rules over its own state
 * in one synchronous call (in-process-backend.ts over the memory store) or runs them in storage (Redis's
 * Lua scripts); either way it answers a verdict, and the Policy owns the denials, the deadline and the
 * retry of settlements that did not get through.
 */
export interface PolicyBackend<Ticket, Pending extends { id: string } = { id: string }> {
  /**
   * True when admit answers synchronously from this process's memory: no deadline is needed (and none is
   * paid for), and no admission can be left half-done by a lost reply.
   */
  readonly inProcess: boolean;
  /**
   * One atomic check-and-record of the organization's and the key's limits and money. `attempt` names
   * a remote admission, so that one whose answer never came can be released (abandon); '' in process.
   */
  admit(request: AdmissionRequest, org: OrganizationConfig, now: number, attempt: string): AdmitAnswer<Ticket> | Promise<AdmitAnswer<Ticket>>;
  /**
   * Settles once: charges, appends the ledger, frees the slot. Never rejects: a settlement storage could
   * not take goes to `unsent` (the Policy keeps it to retry) and resolves undefined. A value, not a promise,
   * when nothing had to be waited for (in process, no ledger file).
   */
  settle(ticket: Admitted<Ticket>, request: AdmissionRequest, usage: Usage, route: string | undefined, unsent: (pending: Pending) => Promise<void>): Soon<number | undefined>;
  /**
   * A remote admission that failed or passed the deadline may still have run: release what it may hold. A release
   * storage did not take goes to `unsent`, which keeps it in memory, bounded (it charges nothing: settlement-retry.ts).
   */
  abandon(attempt: string, request: AdmissionRequest, error: unknown, unsent: (pending: Pending) => Promise<void>): void;
  readonly retries?: SettlementRetries<Pending>;
  readonly idempotency: IdempotencyStore;
  close(): Promise<void>;
}
