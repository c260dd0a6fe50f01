/** How often the finishes Redis did not take are sent again (as settlements are: policy/settlement-retry.ts). */
const RESEND_MS = 1_000;

/** One Idempotency-Key finish as it was sent: the script's keys and arguments, and the answer bytes it carries. */
export interface UnsentFinish {
  args: (string | number | Buffer)[];
  bytes: number;
}

/**
 * Finishes of Idempotency-Key records (an answer kept, a key freed) that Redis did not take, sent again every second
 * until it does. Lost, the claim stayed "running" until it expired (31 minutes by default): the retry of a request
 * that was answered and billed got 409 idempotency_key_in_use all that while, then ran and was billed again. A finish
 * is guarded by its claim's token, so one sent twice, or after the key was claimed anew, changes nothing.
 * In memory only and bounded (a kept answer holds its body): past `maxEntries` or `maxBytes` a finish is dropped,
 * and its key waits for its claim to expire, as before.
 *
 * @example
 * const unsent = new UnsentFinishes((finish) => redis.tollgateIdemFinish(...finish.args), { maxEntries: 10_000, maxBytes: 64 << 20 });
 * await redis.tollgateIdemFinish(...args).catch(() => unsent.keep({ args, bytes }));
 */
export class UnsentFinishes {
  #waiting: UnsentFinish[] = [];
  #bytes = 0;
  #timer: NodeJS.Timeout | undefined;
  #draining: Promise<void> | undefined;
  #closed = false;

  constructor(
    private readonly send: (finish: UnsentFinish) => Promise<unknown>,
    private readonly bounds: { maxEntries: number; maxBytes: number },
  ) {}

  keep(finish: UnsentFinish): void {
    if (this.#closed || this.#waiting.length >= this.bounds.maxEntries || this.#bytes + finish.bytes > this.bounds.maxBytes) return;
    this.#waiting.push(finish);
    this.#bytes += finish.bytes;
    this.#arm();
  }

  /** One last attempt; what Redis still does not take is dropped (its keys wait for their claims to expire). */
  async close(): Promise<void> {
    clearTimeout(this.#timer);
    await this.#draining;
    await this.#drain();
    this.#closed = true;
    clearTimeout(this.#timer);
  }

  #arm(): void {
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      // One drain at a time; what it could not send is armed again once it ended.
      this.#draining ??= this.#drain().finally(() => {
        this.#draining = undefined;
        if (this.#waiting.length > 0) this.#arm();
      });
    }, RESEND_MS);
    this.#timer.unref();
  }

  /** In order, one at a time: a Redis that hangs fails each within its command timeout, never all at once. */
  async #drain(): Promise<void> {
    for (const finish of this.#waiting.splice(0)) {
      this.#bytes -= finish.bytes;
      await this.send(finish).catch(() => this.keep(finish));
    }
  }
}
