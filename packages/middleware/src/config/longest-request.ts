import type { RelayConfig } from './config-schema.js';

/** The shortest a hold on a request's behalf ever is, whatever the relay allows. */
const AT_LEAST_MS = 15 * 60_000;
/** What a request may take beyond its upstream attempt: admission, settlement, writing its answer. */
const MARGIN_MS = 60_000;

/**
 * How long anything held for a request whose instance may have died must outlive it: a Redis concurrency lease
 * (with its reservation) and an idempotency key's running claim. Longer than any request can legitimately run —
 * one upstream attempt may take `relay.attemptDeadlineMs` (30 minutes by default) — or a slot, a reservation or a
 * key would be given up while its request still runs: a wallet below −overdraft, an Idempotency-Key run twice.
 *
 * @example
 * longestRequestMs({ attemptDeadlineMs: 1_800_000 }) // 1_860_000
 */
export function longestRequestMs(relay: Pick<RelayConfig, 'attemptDeadlineMs'>): number {
  return Math.max(AT_LEAST_MS, relay.attemptDeadlineMs + MARGIN_MS);
}
