import { resolve } from 'node:path';
import type { ResolvedConfig } from '../config/index.js';
import { ledgerDirectoryOf } from '../store/index.js';

/**
 * Where the configured store keeps its ledger files, which the console reads: beside a memory store's
 * file, or a Redis store's export directory; undefined when the store keeps none.
 */
export function consoleLedgerDirectory(config: ResolvedConfig, baseDir: string): string | undefined {
  const store = config.store;
  if (store.kind === 'memory') return store.file ? ledgerDirectoryOf(resolve(baseDir, store.file)) : undefined;
  return store.ledger === false ? undefined : resolve(baseDir, store.ledger.dir);
}
