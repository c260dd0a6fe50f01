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
   * Moves the window to `second`, emptying the seconds that left it; returns the second that a new entry
   * counts in. A ring belongs to one process's clock (the memory store; Redis keeps its own, shared by
   * instances whose clocks may disagree), so a second before the newest seen is that clock stepping back
   * (an NTP correction, a VM restored from a snapshot): the window moves back with it, keeping what it
   * counts and how old each count is (`#stepBack`). Kept at the newest second instead, the window froze
   * for as long as the step: an organization at its limit was refused for an hour after a step back of an
   * hour, with a Retry-After of 3,661 s.
   */
  advance(second: number): number {
    if (second === this.#head) return second;
    if (second < this.#head) {
      this.#stepBack(this.#head - second);
      return second;
    }
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

  /** Moves every count `by` seconds back: each counts for as long as it did, from the clock's new second. */
  #stepBack(by: number): void {
    const moved = this.#counts.slice();
    for (let age = 0; age < RING_SLOTS; age++) this.#counts[(this.#head - by - age) % RING_SLOTS] = moved[(this.#head - age) % RING_SLOTS]!;
    this.#head -= by;
  }

  /** Counts `amount` at `second`; returns the second it counts in. */
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
