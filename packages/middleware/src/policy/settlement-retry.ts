import type { ErrorReport, SettlementRetries } from './policy-backend.js';

const SETTLE_RETRY_MS = 1_000;

/**
 * Settlements storage could not take, kept and sent again every second until it is back, so no metered
 * token is lost while it is away; with a pending file (the backend's spool) each is durable there before
 * the settlement is acknowledged, and one an earlier process left is sent again at start-up.
 *
 * @example
 * const retry = new SettlementRetry(backend.retries, logger);
 * await retry.defer(settlement); // from the backend's settle, when storage refused it
 */
export class SettlementRetry<Pending extends { id: string }> {
  #pending: Pending[] = [];
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly retries: SettlementRetries<Pending>,
    private readonly logger: ErrorReport,
  ) {
    for (const pending of retries.waiting) this.#later(pending);
  }

  /** Bound once, handed to the backend's settle: keeps a settlement it could not deliver. */
  readonly defer = async (pending: Pending): Promise<void> => {
    await this.retries.spool?.hold(pending).catch((error: unknown) => this.logger.error(`pending settlements: could not write ${JSON.stringify(pending)}; it waits in memory only`, error));
    this.#later(pending);
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
  }
}
