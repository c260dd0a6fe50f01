/** Injectable time so tests need no sleeps (STYLE convention 9). */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
