/** An upstream call the sweep watches: told once its deadline passed, unless it was let go first. */
export interface Expiring {
  /** The sweep's tick from which on it has expired (the sweep's own bookkeeping, set by `watch`). */
  expiresAtTick: number;
  expired(): void;
}

/** How late a deadline may fire, at most: a timer's precision is worth nothing on a deadline of minutes. */
const MAX_RESOLUTION_MS = 500;

/**
 * One coarse timer for every attempt deadline of an upstream client, instead of a `setTimeout` and a
 * `clearTimeout` per call (issue 19: ~0.3–0.5 µs of each request; undici's own "fast timers" do the same for its
 * timeouts). All its deadlines have the same length, so the calls expire in the order they were watched: a
 * tick looks at the oldest only. A deadline fires between `deadlineMs` and `deadlineMs` plus the resolution
 * (an eighth of the deadline, at most 500 ms) after `watch`, never before. The timer runs only while a call is
 * watched and never keeps the process alive by itself (the call's socket does).
 *
 * @example
 * const sweep = new DeadlineSweep(relay.attemptDeadlineMs);
 * sweep.watch(answer); // answer.expired() once its deadline passed
 * sweep.release(answer); // it finished first
 */
export class DeadlineSweep {
  readonly #watched = new Set<Expiring>();
  readonly #resolutionMs: number;
  /** Ticks a deadline spans, plus the one already under way when it is watched. */
  readonly #span: number;
  #tick = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(deadlineMs: number, resolutionMs = Math.min(MAX_RESOLUTION_MS, Math.max(1, Math.ceil(deadlineMs / 8)))) {
    this.#resolutionMs = resolutionMs;
    this.#span = Math.ceil(deadlineMs / resolutionMs) + 1;
  }

  watch(call: Expiring): void {
    call.expiresAtTick = this.#tick + this.#span;
    this.#watched.add(call);
    if (this.#timer === undefined) {
      this.#timer = setInterval(sweep, this.#resolutionMs, this);
      this.#timer.unref();
    }
  }

  release(call: Expiring): void {
    this.#watched.delete(call);
  }

  /** One tick: every call whose deadline passed is told, oldest first (run by the timer; tests call it directly). */
  sweep(): void {
    const tick = ++this.#tick;
    for (const call of this.#watched) {
      if (call.expiresAtTick > tick) break;
      this.#watched.delete(call);
      call.expired();
    }
    if (this.#watched.size === 0) this.stop();
  }

  /** The timer goes (the client closes); calls still watched are not told. */
  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

function sweep(deadlines: DeadlineSweep): void {
  deadlines.sweep();
}
