import { RequestFailure } from './request-failure.js';

/**
 * Counts the bytes of an answer while the worker builds it, so an answer past `sql.maxResultBytes` fails
 * promptly (`result_too_large`) instead of being built whole, copied to the main thread and serialised there.
 * Sizes are those of the values as sent: UTF-8 bytes of text, base64 of blobs, 24 bytes per number (JSON
 * escapes are not counted); each result's columns count too (their names, declared types and entries).
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

  /** A column's entry in `column_types` (`{"declared":…,"storage":…}`) besides its declared type's text. */
  static readonly COLUMN_BYTES = 32;

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

  /**
   * The columns of one result: their names and declared types go out with it, and they are not bounded by the
   * values — a table's column names can be as long as a statement, `SELECT *, *, *` repeats them and
   * `results: "all"` repeats them per statement (a 1 MiB budget let a 150 MB answer through).
   */
  addColumns(names: readonly string[], declared: readonly (string | null)[] | undefined): void {
    let bytes = names.length * ResultBudget.COLUMN_BYTES;
    for (const name of names) bytes += ResultBudget.textBytes(Buffer.byteLength(name));
    if (declared) for (const type of declared) if (type !== null) bytes += Buffer.byteLength(type);
    this.add(bytes);
  }

  /** Starts counting again: a streamed answer bounds each row, not the whole. */
  reset(): void {
    this.#used = 0;
  }
}
