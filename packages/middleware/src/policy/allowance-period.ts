/**
 * When an included allowance refills next, strictly after `now`:
 * - `resetAt` still in the future: that instant;
 * - with `period`: the start of the next calendar day, ISO week (Monday) or month in UTC;
 * - `resetAt` alone and passed: the same day and time of a following month (a monthly cycle anchored at
 *   it, clamped to the month's last day), so a one-off instant never turns into an allowance that
 *   refills on every request and the exhausted answer always names a future X-Service-Reset-At.
 *
 * @example
 * nextReset({ period: 'month' }, Date.parse('2026-11-22T10:00:00Z')) // 2026-12-01T00:00:00Z
 */
export function nextReset(included: { period?: 'day' | 'week' | 'month' | undefined; resetAt?: string | undefined }, now: number): number {
  const anchor = included.resetAt === undefined ? undefined : Date.parse(included.resetAt);
  if (anchor !== undefined && anchor > now) return anchor;
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
      return Date.UTC(y, m + 1, 1);
    case undefined:
      if (anchor === undefined) return Date.UTC(y, m + 1, 1);
      return monthlyAfter(anchor, now);
  }
}

/**
 * A kept period end (an allowance's reset, a key budget's renewal) as the clock now reads it: never later than
 * the end of the period `now` lies in. A later one was set while the clock ran ahead (a VM booted with its clock
 * a year fast, then corrected by NTP): kept, the allowance or budget stayed used up until that far instant (a
 * year, named in X-Service-Reset-At). What was used stays counted; only the end moves back.
 *
 * @example
 * keptPeriodEnd({ period: 'month' }, Date.parse('2027-12-01T00:00:00Z'), Date.parse('2026-11-22T12:00:00Z')) // 2026-12-01T00:00:00Z
 */
export function keptPeriodEnd(included: Parameters<typeof nextReset>[0], end: number, now: number): number {
  // Every period's end is one instant in any day ahead (one midnight, one Monday, one 1st), so only an end over a
  // day away can lie past the current period's: the common case costs one subtraction, no date arithmetic.
  if (end - now <= DAY_MS) return end;
  return Math.min(end, nextReset(included, now));
}

const DAY_MS = 86_400_000;

function monthlyAfter(anchor: number, now: number): number {
  const a = new Date(anchor);
  const monthsSince = (new Date(now).getUTCFullYear() - a.getUTCFullYear()) * 12 + new Date(now).getUTCMonth() - a.getUTCMonth();
  for (let k = Math.max(1, monthsSince); ; k++) {
    const candidate = addMonths(a, k);
    if (candidate > now) return candidate;
  }
}

function addMonths(a: Date, k: number): number {
  const lastDay = new Date(Date.UTC(a.getUTCFullYear(), a.getUTCMonth() + k + 1, 0)).getUTCDate();
  return Date.UTC(a.getUTCFullYear(), a.getUTCMonth() + k, Math.min(a.getUTCDate(), lastDay), a.getUTCHours(), a.getUTCMinutes(), a.getUTCSeconds(), a.getUTCMilliseconds());
}
