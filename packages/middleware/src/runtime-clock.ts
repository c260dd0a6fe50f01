/** Injectable time so tests need no sleeps (STYLE convention 9). */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/**
 * An end set `spanMs` after some instant (a cool-down, a session), as the clock reads now: never more than
 * `spanMs` away. A wall clock stepped back (an NTP correction of a clock a day fast) would otherwise push the
 * end out by the whole step; moved back with the clock, the step adds at most one span.
 *
 * @example
 * route.openUntil = endWithin(route.openUntil, coolDownMs, clock.now());
 */
export function endWithin(end: number, spanMs: number, now: number): number {
  return end - now > spanMs ? now + spanMs : end;
}
