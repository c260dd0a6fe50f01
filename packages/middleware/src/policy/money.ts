/**
 * Money is integers: balances in micro-dollars (1e-6 USD), prices in pico-dollars per token (a price of
 * USD 0.15 per million tokens is 150,000 pico-dollars per token), so every price with up to six decimals
 * is exact and no float ever touches a balance (STYLE convention 9).
 */
export type Micros = number;

export function usdToMicros(usd: number): Micros {
  return Math.round(usd * 1_000_000);
}

export function microsToUsd(micros: Micros): number {
  return micros / 1_000_000;
}

/** USD per million tokens → pico-dollars per token. */
export function pricePerToken(usdPerMillion: number): number {
  return Math.round(usdPerMillion * 1_000_000);
}

/** A settlement's tokens by how they are billed: plain input, cache reads, cache writes, output. */
export interface BilledTokens {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  cacheWriteTokens: number;
}

/**
 * Usage as a settlement bills it: whole non-negative counts, cache reads and writes never more than the
 * prompt they are part of (reads first). Both stores settle through it, so they charge the same.
 *
 * @example
 * billedTokens({ inputTokens: 10, outputTokens: 2, cachedInputTokens: 12 }) // { inputTokens: 10, outputTokens: 2, cachedInputTokens: 10, cacheWriteTokens: 0 }
 */
export function billedTokens(usage: { inputTokens: number; outputTokens: number; cachedInputTokens?: number; cacheWriteTokens?: number }): BilledTokens {
  const inputTokens = wholeCount(usage.inputTokens);
  const cachedInputTokens = Math.min(inputTokens, wholeCount(usage.cachedInputTokens ?? 0));
  const cacheWriteTokens = Math.min(inputTokens - cachedInputTokens, wholeCount(usage.cacheWriteTokens ?? 0));
  return { inputTokens, outputTokens: wholeCount(usage.outputTokens), cachedInputTokens, cacheWriteTokens };
}

/** The same rule as store/settled-count.ts: a non-negative safe integer, anything else 0 (nothing can make a settlement throw). */
function wholeCount(value: number): number {
  const rounded = Math.round(value);
  return Number.isSafeInteger(rounded) && rounded > 0 ? rounded : 0;
}

/** The four pico-dollar-per-token rates of a price; unset cache rates are the input rate (old configs bill as before). */
export function picoRates(price: { input: number; output: number; cachedInput?: number; cacheWrite?: number }): { input: number; output: number; cachedInput: number; cacheWrite: number } {
  const input = pricePerToken(price.input);
  return {
    input,
    output: pricePerToken(price.output),
    cachedInput: price.cachedInput === undefined ? input : pricePerToken(price.cachedInput),
    cacheWrite: price.cacheWrite === undefined ? input : pricePerToken(price.cacheWrite),
  };
}

/**
 * The cost of tokens at a price, rounded up to the next micro-dollar per request: a request is never
 * billed less than it cost, and at most one micro-dollar more. Cached prompt tokens (part of
 * `inputTokens`) are billed at `cachedInput`, cache writes at `cacheWrite`, the rest at `input`.
 * Exact however large the product grows (the result is capped at 2^53 - 1 micro-dollars): in plain
 * numbers while every intermediate is a safe integer (any real request), else in BigInt.
 *
 * @example
 * costMicros({ inputTokens: 1000, outputTokens: 500 }, { input: 3, output: 15 }) // 10500
 * costMicros({ inputTokens: 1000, outputTokens: 0, cachedInputTokens: 1000 }, { input: 3, output: 15, cachedInput: 0.3 }) // 300
 */
export function costMicros(tokens: { inputTokens: number; outputTokens: number; cachedInputTokens?: number; cacheWriteTokens?: number }, price: { input: number; output: number; cachedInput?: number; cacheWrite?: number }): Micros {
  const rates = picoRates(price);
  const cached = tokens.cachedInputTokens ?? 0;
  const written = tokens.cacheWriteTokens ?? 0;
  const plain = tokens.inputTokens - cached - written;
  const pico = plain * rates.input + cached * rates.cachedInput + written * rates.cacheWrite + tokens.outputTokens * rates.output;
  if (Number.isSafeInteger(pico)) {
    // Integer steps only, so exactness never rests on how a float quotient rounds.
    const remainder = pico % PICO_PER_MICRO;
    return (pico - remainder) / PICO_PER_MICRO + (remainder > 0 ? 1 : 0);
  }
  const exact = BigInt(plain) * BigInt(rates.input) + BigInt(cached) * BigInt(rates.cachedInput) + BigInt(written) * BigInt(rates.cacheWrite) + BigInt(tokens.outputTokens) * BigInt(rates.output);
  // Capped so a balance stays a safe integer whatever a price or count is (issue 15: a wallet at -1e294 USD).
  return Math.min(Number((exact + PICO_PER_MICRO_BIG - 1n) / PICO_PER_MICRO_BIG), Number.MAX_SAFE_INTEGER);
}

const PICO_PER_MICRO = 1_000_000;
const PICO_PER_MICRO_BIG = BigInt(PICO_PER_MICRO);
