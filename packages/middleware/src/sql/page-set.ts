import { isTruncate, type PageOp } from './page-op.js';

/**
 * An ordered set of file operations in which a later write of exactly the same (offset, length) replaces
 * the earlier one. Applying what survives, in order, gives the same file as applying everything: a group
 * of commits, or a whole journal segment, shrinks to the last version of each page it touched, and
 * truncations keep their place in the order.
 *
 * @example
 * const group = new PageSet();
 * group.addAll(firstRequestOps); group.addAll(secondRequestOps);
 * group.size; // distinct pages + truncations
 */
export class PageSet {
  readonly #ops = new Map<string, PageOp>();
  #truncations = 0;
  /** File size after the last operation (-1 until known). */
  sizeAfter = -1;

  get size(): number {
    return this.#ops.size;
  }

  add(op: PageOp): void {
    if (isTruncate(op)) {
      this.#ops.set(`t${this.#truncations++}`, op);
      return;
    }
    const key = `${op.offset}:${op.data.byteLength}`;
    // Deleted first so the new version takes its place at the end of the order, after any truncation.
    this.#ops.delete(key);
    this.#ops.set(key, op);
  }

  addAll(ops: Iterable<PageOp>, sizeAfter?: number): void {
    for (const op of ops) this.add(op);
    if (sizeAfter !== undefined) this.sizeAfter = sizeAfter;
  }

  merge(other: PageSet): void {
    this.addAll(other.ops(), other.sizeAfter >= 0 ? other.sizeAfter : undefined);
  }

  ops(): IterableIterator<PageOp> {
    return this.#ops.values();
  }
}
