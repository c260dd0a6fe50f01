import type { PageOp } from './page-op.js';

/**
 * Where a database's committed state lives between worker lifetimes: a journaled file, or memory. A worker
 * starts from `load()`; each answer's pages go to `commit()` in the order the worker made them, so the
 * store always holds exactly what the answers so far did, and a restarted worker loses nothing they did.
 */
export interface DatabaseStore {
  /** The committed image (after recovery, for a file), or null for a new, empty database. */
  load(): Promise<Uint8Array | null>;
  /** Records one answer's pages; resolves once they are durable. */
  commit(ops: PageOp[], sizeAfter: number): Promise<void>;
  /** Some commit is not durable yet. */
  readonly busy: boolean;
  whenDurable(): Promise<void>;
  close(): Promise<void>;
}
