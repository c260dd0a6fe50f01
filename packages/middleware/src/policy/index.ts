export type { Policy, Admission, AdmissionRequest, Usage, AdminOperations, UsageReport } from './policy-types.js';
export { usdToMicros, microsToUsd, costMicros } from './money.js';
import type { KeyRing } from '../auth/index.js';
import type { ResolvedConfig } from '../config/index.js';
import type { Clock } from '../runtime-clock.js';
import type { Logger } from '../logger.js';
import { MemoryPolicyStore, RedisPolicyStore } from '../store/index.js';
import type { AdminOperations, Policy } from './policy-types.js';

export interface PolicyOptions {
  config: ResolvedConfig;
  keys: KeyRing;
  clock: Clock;
  baseDir: string;
  /** Where a ledger line that could not be written is reported; stderr by default. */
  logger?: Pick<Logger, 'error'>;
}

/**
 * Starts the policy over the configured store: rate limits, billing and metering, plus the admin
 * operations that change balances and keys.
 *
 * @example
 * const { policy, admin } = await createPolicy({ config, keys, clock: systemClock, baseDir: process.cwd() });
 */
export async function createPolicy(options: PolicyOptions): Promise<{ policy: Policy; admin: AdminOperations }> {
  const { config } = options;
  if (config.store.kind === 'redis') {
    const store = await RedisPolicyStore.connect(options);
    return { policy: store, admin: store };
  }
  const store = await MemoryPolicyStore.open(config, options.keys, options.clock, options.baseDir, options.logger);
  return { policy: store, admin: store };
}
