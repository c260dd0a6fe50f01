/** What UseOrder numbers: its position of last use, -1 while out of the order. */
export interface Ordered {
  lastUse: number;
}

/**
 * Items in order of last use, oldest first, for least-recently-used eviction at O(1) a use: a use appends
 * the item again and leaves its earlier place stale (skipped), and the array is rebuilt once the stale
 * places outnumber the live ones (one copy per as many uses). Why not a Map's insertion order: each
 * deletion there leaves a hole that evicting from the oldest end walks again on every request (7 µs per
 * claim at 10,000 entries, measured; /work/notes/s17-beyond.md).
 *
 * @example
 * const order = new UseOrder<Entry>();
 * order.touch(entry);               // used now
 * const oldest = order.takeOldest(); // out of the order; touch it to put it back
 */
export class UseOrder<T extends Ordered> {
  #items: (T | undefined)[] = [];
  /** Index of the oldest place not yet taken. */
  #head = 0;
  /** Items in the order (each once, at its last use). */
  #live = 0;

  get size(): number {
    return this.#live;
  }

  /** Marks `item` as used now (it enters the order if it was out). */
  touch(item: T): void {
    if (item.lastUse < 0) this.#live++;
    item.lastUse = this.#items.length;
    this.#items.push(item);
    if (this.#items.length - this.#head > 2 * this.#live + 1_024) this.#rebuild();
  }

  /** Takes `item` out of the order (its places turn stale). */
  forget(item: T): void {
    if (item.lastUse < 0) return;
    item.lastUse = -1;
    this.#live--;
  }

  /** Takes the least recently used item out of the order; undefined when it is empty. */
  takeOldest(): T | undefined {
    const items = this.#items;
    while (this.#head < items.length) {
      const at = this.#head++;
      const item = items[at];
      items[at] = undefined;
      if (item !== undefined && item.lastUse === at) {
        item.lastUse = -1;
        this.#live--;
        return item;
      }
    }
    return undefined;
  }

  /** Keeps each live item once, at its last use, oldest first, numbered afresh. */
  #rebuild(): void {
    const items = this.#items;
    const kept: T[] = [];
    for (let at = this.#head; at < items.length; at++) {
      const item = items[at];
      if (item !== undefined && item.lastUse === at) {
        item.lastUse = kept.length;
        kept.push(item);
      }
    }
    this.#items = kept;
    this.#head = 0;
  }
}
