import type { DatabaseStore } from './database-store.js';
import type { PageOp } from './page-op.js';
import { PageImage } from './page-image.js';

/**
 * An in-memory database's committed state: the pages applied to an image in the main thread, so a worker
 * restarted after a runaway statement starts where the last answer left it. Nothing to wait for.
 *
 * @example
 * const store = new MemoryStore();
 * await store.commit(ops, 8192);
 */
export class MemoryStore implements DatabaseStore {
  readonly #image = new PageImage();
  readonly busy = false;

  load(): Promise<Uint8Array | null> {
    // A copy: the worker's transfer must not take the image this store keeps applying pages to.
    return Promise.resolve(this.#image.size === 0 ? null : this.#image.bytes().slice());
  }

  commit(ops: PageOp[]): Promise<void> {
    this.#image.apply(ops);
    return Promise.resolve();
  }

  whenDurable(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
