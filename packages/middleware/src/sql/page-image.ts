import { isTruncate, type PageOp } from './page-op.js';

/**
 * A database file being rebuilt in memory: a buffer that grows by a quarter when it must, and the file's
 * size (bytes past it are meaningless). Recovery applies the journal to one; an in-memory database keeps one
 * as its committed state.
 *
 * @example
 * const image = new PageImage(readFileSync(file));
 * image.apply(record.ops);
 * new SQL.Database(image.bytes());
 */
export class PageImage {
  #buffer: Buffer;
  #size: number;

  /** `capacity`: room reserved up front (recovery knows the largest size its records reach: no regrowth copy). */
  constructor(initial: Uint8Array = new Uint8Array(0), capacity = initial.byteLength) {
    this.#buffer = Buffer.from(initial.buffer, initial.byteOffset, Math.max(initial.byteLength, Math.min(capacity, initial.buffer.byteLength - initial.byteOffset)));
    this.#size = initial.byteLength;
  }

  get size(): number {
    return this.#size;
  }

  apply(ops: Iterable<PageOp>): void {
    for (const op of ops) {
      if (isTruncate(op)) {
        if (op.truncate > this.#size) {
          this.#reserve(op.truncate);
          this.#buffer.fill(0, this.#size, op.truncate);
        }
        this.#size = op.truncate;
        continue;
      }
      const end = op.offset + op.data.byteLength;
      this.#reserve(end);
      if (op.offset > this.#size) this.#buffer.fill(0, this.#size, op.offset);
      this.#buffer.set(op.data, op.offset);
      this.#size = Math.max(this.#size, end);
    }
  }

  /** The file's bytes (a view: valid until the next apply). */
  bytes(): Uint8Array {
    return this.#buffer.subarray(0, this.#size);
  }

  #reserve(length: number): void {
    if (length <= this.#buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(length, Math.ceil(this.#buffer.length * 1.25)));
    this.#buffer.copy(grown, 0, 0, this.#size);
    this.#buffer = grown;
  }
}
