/**
 * The rate-limit window, the same in both stores (README "Rate limits: the promise"): 61 per-second
 * counters, so its memory is fixed however much traffic it counts. Something counted in second `s`
 * (epoch seconds) stays counted until the start of second `s + 61`: the window always covers the whole
 * trailing 60 seconds, so it never admits more than the limit in any trailing 60 s, and it over-counts
 * by at most the part of the oldest second that is already older than 60 s (at most one second's share).
 * The Redis store keeps the same ring in a hash (store/redis-scripts.ts) with the same arithmetic.
 *
 * @example
 * const ring = new SecondRing();
 * const second = ring.add(Math.floor(now / 1000), 1);
 * if (ring.total >= limit) wait = ring.waitUntilFreed(ring.total - limit + 1, now);
 */
export class SecondRing {
  readonly #counts = new Float64Array(RING_SLOTS);
  #head = Number.NEGATIVE_INFINITY;
  #total = 0;

  /** The newest second the window has moved to: where a new entry counts. */
  get head(): number {
    return this.#head;
  }

  /** What the window counts now (after `advance`). */
  get total(): number {
    return this.#total;
  }

  /**
   * Moves the window to `second`, emptying the seconds that left it. A clock that stepped back (another
   * instance, a time correction) keeps the newest second seen: the window never runs backwards.
   * Returns the second that a new entry counts in.
   */
  advance(second: number): number {
    if (second <= this.#head) return this.#head;
    if (second - this.#head >= RING_SLOTS) {
      this.#counts.fill(0);
      this.#total = 0;
    } else {
      for (let s = this.#head + 1; s <= second; s++) {
        const slot = s % RING_SLOTS;
        this.#total -= this.#counts[slot]!;
        this.#counts[slot] = 0;
      }
    }
    this.#head = second;
    return second;
  }

  /** Counts `amount` at `second` (or the newest second seen, if later); returns the second it counts in. */
  add(second: number, amount: number): number {
    const counted = this.advance(second);
    this.#counts[counted % RING_SLOTS]! += amount;
    this.#total += amount;
    return counted;
  }

  /**
   * Changes what `second` counts by `delta` (the tokens-per-minute correction at settlement), if that
   * second is still in the window; once it left, there is nothing to correct.
   */
  correct(second: number, delta: number): void {
    if (second > this.#head || this.#head - second > WINDOW_SECONDS) return;
    this.#counts[second % RING_SLOTS]! += delta;
    this.#total += delta;
  }

  /**
   * Milliseconds from `now` until at least `amount` has left the window: the real wait a Retry-After
   * names. When even an empty window could not make room (a prompt larger than the whole limit), the
   * wait until the window is empty.
   */
  waitUntilFreed(amount: number, now: number): number {
    let freed = 0;
    let newest = this.#head;
    for (let s = this.#head - WINDOW_SECONDS; s <= this.#head; s++) {
      const count = this.#counts[s % RING_SLOTS]!;
      if (count === 0) continue;
      freed += count;
      newest = s;
      if (freed >= amount) return leavesAt(s) - now;
    }
    return leavesAt(newest) - now;
  }
}

const WINDOW_SECONDS = 60;
/** The window's 60 seconds plus the current, partly elapsed one. */
export const RING_SLOTS = WINDOW_SECONDS + 1;

/** The instant (epoch ms) at which what was counted in `second` stops counting. */
function leavesAt(second: number): number {
  return (second + RING_SLOTS) * 1_000;
}
