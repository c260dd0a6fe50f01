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

/**
 * The cost of tokens at a price, rounded up to the next micro-dollar per request: a request is never
 * billed less than it cost, and at most one micro-dollar more. Exact however large the product grows (the result is capped at
 * 2^53 - 1 micro-dollars): in plain numbers while every intermediate is a safe integer (any real request), else in BigInt.
 *
 * @example
 * costMicros({ inputTokens: 1000, outputTokens: 500 }, { input: 3, output: 15 }) // 10500
 */
export function costMicros(tokens: { inputTokens: number; outputTokens: number }, price: { input: number; output: number }): Micros {
  const inputPrice = pricePerToken(price.input);
  const outputPrice = pricePerToken(price.output);
  const pico = tokens.inputTokens * inputPrice + tokens.outputTokens * outputPrice;
  if (Number.isSafeInteger(pico)) {
    // Integer steps only, so exactness never rests on how a float quotient rounds.
    const remainder = pico % PICO_PER_MICRO;
    return (pico - remainder) / PICO_PER_MICRO + (remainder > 0 ? 1 : 0);
  }
  const exact = BigInt(tokens.inputTokens) * BigInt(inputPrice) + BigInt(tokens.outputTokens) * BigInt(outputPrice);
  // Capped so a balance stays a safe integer whatever a price or count is (issue 15: a wallet at -1e294 USD).
  return Math.min(Number((exact + PICO_PER_MICRO_BIG - 1n) / PICO_PER_MICRO_BIG), Number.MAX_SAFE_INTEGER);
}

const PICO_PER_MICRO = 1_000_000;
const PICO_PER_MICRO_BIG = BigInt(PICO_PER_MICRO);
