import { ServiceError } from '../errors/index.js';

/**
 * Work of one kind in progress in this process, per organization, bounded by its `limits.concurrency`: for what
 * runs before (or without) admission, which is where that limit is otherwise kept (contract §8 rule 1: concurrent
 * requests). An organization without a concurrency limit is not bounded here. Two kinds (runtime.ts):
 * - request bodies still arriving: a body is read before admission (admission needs the model and the prompt), so
 *   without this one key could open a thousand connections that each send 19 of a declared 20 MiB and stall: 19 GB
 *   held before any limit applied. Only bodies read over time take a slot: one that arrived with its headers (the
 *   common small body) is whole already (README "Relay limits");
 * - token counts (`/v1/messages/count_tokens`), never admitted since they generate nothing, yet each costs the
 *   tokenizer's CPU or a call on the operator's provider key (README "count_tokens").
 *
 * @example
 * const uploads = new OrgSlots((org) => config.organizations[org]?.limits.concurrency, 'request bodies arriving');
 * const slot = uploads.of('acme');
 * slot.take(); // throws 429 rate_limited once acme has `concurrency` bodies arriving
 * slot.give();
 */
export class OrgSlots {
  /** One per organization that used one, made on its first request: as many as the configured organizations. */
  readonly #slots = new Map<string, OrgSlot>();

  /** `activity` names the work in the 429's message ("request bodies arriving", "token counts running"). */
  constructor(
    private readonly limitOf: (org: string) => number | undefined,
    private readonly activity: string,
  ) {}

  /** The organization's slots (the same object every time: no allocation per request). */
  of(org: string): OrgSlot {
    let slot = this.#slots.get(org);
    if (!slot) this.#slots.set(org, (slot = new OrgSlot(this.limitOf(org), this.activity)));
    return slot;
  }
}

/** One organization's work of one kind in progress. */
export class OrgSlot {
  /** Slots taken now. */
  taken = 0;

  constructor(
    private readonly limit: number | undefined,
    private readonly activity: string,
  ) {}

  /** One more starts; past the limit, a 429 `rate_limited` (contract §7.1: concurrent requests). */
  take(): void {
    if (this.limit !== undefined && this.taken >= this.limit) {
      throw new ServiceError('rate_limited', `Rate limit reached for ${this.activity} at once (this organization's concurrency limit, ${this.limit}); retry after the Retry-After interval`, { retryAfterSeconds: 1 });
    }
    this.taken++;
  }

  /** One taken with `take` ended, however it ended. */
  give(): void {
    this.taken--;
  }
}
