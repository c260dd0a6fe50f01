import { ServiceError } from '../errors/index.js';

/**
 * Request bodies still arriving, per organization, bounded by its `limits.concurrency`. A body is read before
 * admission (admission needs the model and the prompt), so without this one key could open a thousand connections
 * that each send 19 of a declared 20 MiB and stall: 19 GB held before any limit applied. With it an organization
 * holds at most `concurrency` bodies being read, besides its `concurrency` admitted requests (README "Relay limits").
 * An organization without a concurrency limit is not bounded here. Only bodies read over time take a slot: one that
 * arrived with its headers (the common small body) is whole already.
 *
 * @example
 * const uploads = new UploadSlots((org) => config.organizations[org]?.limits.concurrency);
 * const slot = uploads.of('acme');
 * slot.take(); // throws 429 rate_limited once acme has `concurrency` bodies arriving
 * slot.give();
 */
export class UploadSlots {
  /** One per organization that sent a body, made on its first request: as many as the configured organizations. */
  readonly #slots = new Map<string, UploadSlot>();

  constructor(private readonly limitOf: (org: string) => number | undefined) {}

  /** The organization's slots (the same object every time: no allocation per request). */
  of(org: string): UploadSlot {
    let slot = this.#slots.get(org);
    if (!slot) this.#slots.set(org, (slot = new UploadSlot(this.limitOf(org))));
    return slot;
  }
}

/** One organization's bodies being read. */
export class UploadSlot {
  /** Bodies of this organization being read now. */
  reading = 0;

  constructor(private readonly limit: number | undefined) {}

  /** One more body starts arriving; past the limit, a 429 `rate_limited` (contract §7.1: concurrent requests). */
  take(): void {
    if (this.limit !== undefined && this.reading >= this.limit) {
      throw new ServiceError('rate_limited', `Rate limit reached for request bodies arriving at once (this organization's concurrency limit, ${this.limit}); retry after the Retry-After interval`, { retryAfterSeconds: 1 });
    }
    this.reading++;
  }

  /** A body taken with `take` is in, refused or abandoned. */
  give(): void {
    this.reading--;
  }
}
