/**
 * A token count as a store settles it: a non-negative safe integer. The model call checks provider usage
 * at the codec boundary; this is the stores' own guard, so nothing a caller passes can make a settlement
 * throw or write a non-integer (Redis's HINCRBY refuses one). Anything else settles as 0.
 *
 * @example
 * settledCount(12.4) // 12
 * settledCount(Infinity) // 0
 */
export function settledCount(value: number): number {
  const rounded = Math.round(value);
  return Number.isSafeInteger(rounded) && rounded > 0 ? rounded : 0;
}
