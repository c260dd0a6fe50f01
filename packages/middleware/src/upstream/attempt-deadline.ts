import type { CancelSignal } from '../http/index.js';
import { deadlineExceeded, type UpstreamFailure } from './upstream-failure.js';

type Listener = () => void;

/**
 * The signal of one streamed upstream attempt: it aborts when the client leaves or when the attempt's
 * overall deadline passes, whichever comes first. undici takes `reason` as the error it destroys the
 * request and its body with, so a stream cut by the deadline fails with the deadline's UpstreamFailure
 * and a departure with undici's own RequestAbortedError (reason undefined), as before.
 *
 * @example
 * const signal = new AttemptDeadline(departure, 1_800_000);
 * const response = await agent.request({ ...options, signal });
 * response.body.once('close', () => signal.clear());
 */
export class AttemptDeadline implements CancelSignal {
  #listeners: Listener[] = [];
  #timer: NodeJS.Timeout;
  #reason: UpstreamFailure | undefined;

  constructor(
    private readonly departure: CancelSignal,
    private readonly deadlineMs: number,
  ) {
    // The instance as the timer's argument, not a bound closure: one object less per open stream.
    this.#timer = setTimeout(expire, deadlineMs, this);
    departure.once('abort', this.#fire);
  }

  get aborted(): boolean {
    return this.#reason !== undefined || this.departure.aborted;
  }

  /** Read by undici when the signal fires. */
  get reason(): UpstreamFailure | undefined {
    return this.#reason;
  }

  once(_event: 'abort', listener: Listener): this {
    this.#listeners.push(listener);
    return this;
  }

  /** undici checks that a signal has `on`; an abort happens once, so `on` is `once`. */
  on(event: 'abort', listener: Listener): this {
    return this.once(event, listener);
  }

  off(_event: 'abort', listener: Listener): this {
    const index = this.#listeners.lastIndexOf(listener);
    if (index >= 0) this.#listeners.splice(index, 1);
    return this;
  }

  removeListener(event: 'abort', listener: Listener): this {
    return this.off(event, listener);
  }

  /** The attempt ended: the timer and the departure's listener go. */
  clear(): void {
    clearTimeout(this.#timer);
    this.departure.off('abort', this.#fire);
  }

  /** The deadline passed (see `expire`). */
  expired(): void {
    this.#reason = deadlineExceeded(this.deadlineMs);
    this.#fire();
  }

  readonly #fire = (): void => {
    this.clear();
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) listener();
  };
}

function expire(deadline: AttemptDeadline): void {
  deadline.expired();
}
