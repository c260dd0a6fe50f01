import type { RateLimitState, WindowState } from '../policy/index.js';

/** The spend of a settled JSON answer, USD (README "Headers on success"). */
export const COST_HEADER = 'x-service-cost-usd';

/**
 * OpenAI's rate-limit headers on a success, for an organization with rpm/tpm limits (issue 17 item 6):
 * `x-ratelimit-{limit,remaining,reset}-{requests,tokens}`, as the openai SDK and OpenAI-paced clients
 * read them. Contract §7.2 lists only denial headers; these are success headers, on every family.
 * Written into the answer's own header object (fresh per request), never on an error.
 *
 * @example
 * addRateLimitHeaders(headers, admission.limits) // headers['x-ratelimit-remaining-requests'] === '59'
 */
export function addRateLimitHeaders(headers: Record<string, string>, state: RateLimitState): void {
  if (state.requests) addWindow(headers, state.requests, 'x-ratelimit-limit-requests', 'x-ratelimit-remaining-requests', 'x-ratelimit-reset-requests');
  if (state.tokens) addWindow(headers, state.tokens, 'x-ratelimit-limit-tokens', 'x-ratelimit-remaining-tokens', 'x-ratelimit-reset-tokens');
}

function addWindow(headers: Record<string, string>, window: WindowState, limit: string, remaining: string, reset: string): void {
  headers[limit] = String(window.limit);
  headers[remaining] = String(window.remaining);
  headers[reset] = resetDuration(window.resetMs);
}

/**
 * A duration as OpenAI writes its reset headers (Go's duration format): `20ms`, `1.5s`, `1m0.25s`.
 *
 * @example
 * resetDuration(60_500) // '1m0.5s'
 */
export function resetDuration(ms: number): string {
  const whole = Math.max(0, Math.round(ms));
  if (whole < 1_000) return `${whole}ms`;
  const minutes = Math.floor(whole / 60_000);
  const seconds = `${(whole % 60_000) / 1_000}s`;
  return minutes > 0 ? `${minutes}m${seconds}` : seconds;
}

/**
 * Micro-dollars as an exact decimal USD string with six places (no float rounding): 3180 → `0.003180`.
 *
 * @example
 * usdOfMicros(1_234_567) // '1.234567'
 */
export function usdOfMicros(micros: number): string {
  const fraction = String(micros % 1_000_000).padStart(6, '0');
  return `${Math.floor(micros / 1_000_000)}.${fraction}`;
}
