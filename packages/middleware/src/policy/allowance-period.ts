/**
 * When an included allowance refills: the start of the next calendar day, ISO week (Monday) or month in
 * UTC, or a fixed instant from the config.
 *
 * @example
 * nextReset({ period: 'month' }, Date.parse('2026-11-22T10:00:00Z')) // 2026-12-01T00:00:00Z
 */
export function nextReset(included: { period?: 'day' | 'week' | 'month'; resetAt?: string }, now: number): number {
  if (included.resetAt) {
    const fixed = Date.parse(included.resetAt);
    if (fixed > now || !included.period) return fixed;
  }
  const date = new Date(now);
  const y = date.getUTCFullYear();
  const m = date.getUTCMonth();
  const d = date.getUTCDate();
  switch (included.period) {
    case 'day':
      return Date.UTC(y, m, d + 1);
    case 'week':
      return Date.UTC(y, m, d + (((8 - date.getUTCDay()) % 7) || 7));
    case 'month':
    default:
      return Date.UTC(y, m + 1, 1);
  }
}
