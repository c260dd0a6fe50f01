// TEMPORARY seam: the model gateway (catalog, providers, upstream pool) is being written now.
import type { ParsedConfig } from './config/index.js';
import type { RuntimeOptions } from './runtime.js';
export class Gateway {
  constructor(readonly parsed: ParsedConfig, readonly options: RuntimeOptions) {}
  async close(): Promise<void> {}
}
