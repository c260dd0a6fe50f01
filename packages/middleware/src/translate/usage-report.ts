/** Usage as a codec saw it (providers' SeenUsage): `reported` is false when the provider sent none. */
export interface UsageSeen {
  inputTokens: number;
  outputTokens: number;
  reported: boolean;
  /** The parts of `inputTokens` read from / written to the provider's prompt cache (absent: none). */
  cachedInputTokens?: number;
  cacheWriteTokens?: number;
  /** Why a report was ignored, when it held something that is not a token count. */
  rejected?: string;
}

/**
 * The most tokens one request can plausibly read or write. No model has a context near it (the largest
 * are ~10M tokens; output is capped at 131,072 by contract §8), so a larger figure is a faulty report,
 * not a bill: it keeps a provider's `1e15` from taking a wallet to minus billions.
 */
export const MAX_REPORTED_TOKENS = 100_000_000;

/**
 * A provider's token count, or undefined when it is not one: a count is a non-negative safe integer no
 * larger than MAX_REPORTED_TOKENS. `"5"`, `1e400`, `1e300`, `-5`, `{}` and `null` are not counts; a
 * string is never coerced, since `"5" + 0` is `"50"`.
 *
 * @example
 * tokenCount(12)    // 12
 * tokenCount('12')  // undefined
 */
export function tokenCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= MAX_REPORTED_TOKENS ? value : undefined;
}

/**
 * A count read from a provider's usage, NaN when it is not one: NaN survives sums (no `"5" + 0`),
 * renders as JSON null, and makes checkedUsage reject the report.
 */
export function countOrNaN(value: unknown): number {
  return tokenCount(value) ?? Number.NaN;
}

/** The sum of counts that may be absent (`undefined`/`null` add nothing), or undefined if any present one is not a count. */
export function sumOfCounts(...values: unknown[]): number | undefined {
  let sum = 0;
  for (const value of values) {
    if (value === undefined || value === null) continue;
    const count = tokenCount(value);
    if (count === undefined) return undefined;
    sum += count;
  }
  return tokenCount(sum);
}

/**
 * Usage as a codec reported it, checked at the codec boundary: a report whose counts are not counts is
 * no report at all (the meter then counts with the tokenizer, as when a provider sends none), and says
 * what was wrong so the meter can log it. Every provider's usage passes here, so a field added later
 * (cached tokens) is checked by the same rule.
 *
 * @example
 * checkedUsage({ inputTokens: Infinity, outputTokens: 3, reported: true }) // { inputTokens: 0, outputTokens: 0, reported: false, rejected: '…' }
 */
export function checkedUsage<Seen extends UsageSeen>(seen: Seen): Seen | UsageSeen {
  if (!seen.reported) return seen;
  if (tokenCount(seen.inputTokens) !== undefined && tokenCount(seen.outputTokens) !== undefined && optionalCount(seen.cachedInputTokens) && optionalCount(seen.cacheWriteTokens)) return seen;
  // A bad cache count rejects the whole report, like a bad prompt count: the cache parts are parts of the
  // prompt, so a report that cannot say them cannot be trusted to bill the prompt either (README "Cached prompt tokens").
  return {
    inputTokens: 0,
    outputTokens: 0,
    reported: false,
    rejected: `input ${describe(seen.inputTokens)}, output ${describe(seen.outputTokens)}, cached ${describe(seen.cachedInputTokens)}, written ${describe(seen.cacheWriteTokens)}`,
  };
}

/** An absent cache count is none; a present one must be a count. */
function optionalCount(value: number | undefined): boolean {
  return value === undefined || tokenCount(value) !== undefined;
}

/** A bounded, printable rendering of a rejected value, for the log line. */
function describe(value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'number' ? String(value) : String(JSON.stringify(value) ?? value);
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
