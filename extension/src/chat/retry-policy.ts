import type { Explanation } from './explain-error.js';

/**
 * How often a failed reply is sent again without the user asking. A rate limit used to count down and
 * resend forever (issue 18: 33 upstream requests, no way out); now a few tries, then the user decides.
 */
export const MAX_AUTOMATIC_RETRIES = 3;

/** What the notice under a failed reply offers: a countdown while automatic tries remain, else Retry / Stop. */
export type Recovery = { kind: 'countdown'; seconds: number; attempt: number; of: number } | { kind: 'manual'; gaveUpAfter?: number };

/** @example recoveryAfter({ title: 'Rate limited', detail: '', action: { kind: 'retry-in', seconds: 7 } }, 3) // { kind: 'manual', gaveUpAfter: 3 } */
export function recoveryAfter(explanation: Explanation, automaticSoFar: number): Recovery {
  if (explanation.action?.kind !== 'retry-in') return { kind: 'manual' };
  if (automaticSoFar >= MAX_AUTOMATIC_RETRIES) return { kind: 'manual', gaveUpAfter: automaticSoFar };
  return { kind: 'countdown', seconds: explanation.action.seconds, attempt: automaticSoFar + 1, of: MAX_AUTOMATIC_RETRIES };
}
