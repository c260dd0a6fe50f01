import { RequestFailure } from './request-failure.js';

/**
 * Counts the bytes of an answer while the worker builds it, so an answer past `sql.maxResultBytes` fails
 * promptly (`result_too_large`) instead of being built whole, copied to the main thread and serialised there.
 * Sizes are those of the values as sent: UTF-8 bytes of text, base64 of blobs, 24 bytes per number (JSON
 * escapes are not counted).
 *
 * @example
 * const budget = new ResultBudget(64 * 1024 * 1024);
 * budget.add(ResultBudget.blobBytes(300_000_000)); // throws result_too_large
 */
export class ResultBudget {
  #used = 0;

  constructor(readonly maxBytes: number) {}

  static readonly NUMBER_BYTES = 24;
  static readonly NULL_BYTES = 5;

  static textBytes(utf8Bytes: number): number {
    return utf8Bytes + 3;
  }

  static blobBytes(bytes: number): number {
    return Math.ceil(bytes / 3) * 4 + 3;
  }

  add(bytes: number): void {
    this.#used += bytes;
    if (this.#used > this.maxBytes) {
      throw new RequestFailure(`The result is larger than ${this.maxBytes} bytes (sql.maxResultBytes); select fewer or smaller values, or stream it (Accept: application/x-ndjson)`, 'result_too_large');
    }
  }

  /** Starts counting again: a streamed answer bounds each row, not the whole. */
  reset(): void {
    this.#used = 0;
  }
}
