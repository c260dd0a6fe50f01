import type { ErrorReport, SettlementRetries } from './policy-backend.js';

const SETTLE_RETRY_MS = 1_000;
/**
 * Releases of admissions that failed (PolicyBackend.abandon) that may wait at once. Each refused request adds one
 * while storage hangs or answers errors (a Redis loading its data, a full disk): they grew with the traffic of
 * the outage, in memory and, fsynced, in the pending file. A release charges nothing, and one that is dropped
 * only keeps its slot and reservation until its lease lapses (README "Concurrency"); so they are kept in memory
 * only, this many at most.
 */
const MAX_WAITING_RELEASES = 10_000;

/**
 * Settlements storage could not take, kept and sent again every second until it is back, so no metered
 * token is lost while it is away; with a pending file (the backend's spool) each is durable there before
 * the settlement is acknowledged, and one an earlier process left is sent again at start-up. Releases of
 * admissions that failed are sent again the same way, but from memory and bounded (MAX_WAITING_RELEASES).
 *
 * @example
 * const retry = new SettlementRetry(backend.retries, logger);
 * await retry.defer(settlement); // from the backend's settle, when storage refused it
 */
export class SettlementRetry<Pending extends { id: string }> {
  #pending: Pending[] = [];
  #releases: Pending[] = [];
  /** Releases deferred and not yet delivered (some may be in a drain's hands, out of #releases). */
  #releasesHeld = 0;
  #droppingReleases = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly retries: SettlementRetries<Pending>,
    private readonly logger: ErrorReport,
    private readonly maxWaitingReleases = MAX_WAITING_RELEASES,
  ) {
    for (const pending of retries.waiting) this.#later(pending);
  }

  /** Bound once, handed to the backend's settle: keeps a settlement it could not deliver. */
  readonly defer = async (pending: Pending): Promise<void> => {
    await this.retries.spool?.hold(pending).catch((error: unknown) => this.logger.error(`pending settlements: could not write ${JSON.stringify(pending)}; it waits in memory only`, error));
    this.#later(pending);
  };

  /** Bound once, handed to the backend's abandon: keeps a release it could not deliver, in memory, up to the bound. */
  readonly deferRelease = async (release: Pending): Promise<void> => {
    if (this.#releasesHeld >= this.maxWaitingReleases) {
      if (!this.#droppingReleases) this.logger.error(`pending settlements: ${this.maxWaitingReleases} releases of failed admissions wait already; further ones are dropped (their slots come back when their leases lapse)`);
      this.#droppingReleases = true;
      return;
    }
    this.#releasesHeld++;
    this.#releases.push(release);
    this.#arm();
  };

  /** One last attempt; what storage still cannot take stays in the pending file for the next start. */
  async close(): Promise<void> {
    clearTimeout(this.#timer);
    await this.#drain();
    clearTimeout(this.#timer);
    await this.retries.spool?.close();
  }

  #later(pending: Pending): void {
    this.#pending.push(pending);
    this.#arm();
  }

  #arm(): void {
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      void this.#drain();
    }, SETTLE_RETRY_MS);
    this.#timer.unref();
  }

  async #drain(): Promise<void> {
    for (const pending of this.#pending.splice(0)) {
      try {
        await this.retries.resend(pending);
      } catch {
        this.#later(pending);
        continue;
      }
      await this.retries.spool?.release(pending.id).catch(() => undefined);
    }
    for (const release of this.#releases.splice(0)) {
      try {
        await this.retries.resend(release);
      } catch {
        this.#releases.push(release);
        this.#arm();
        continue;
      }
      if (--this.#releasesHeld === 0) this.#droppingReleases = false;
    }
  }
}
