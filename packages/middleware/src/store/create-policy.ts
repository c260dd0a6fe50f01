import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import type { KeyRing } from '../auth/index.js';
import { installationSecret } from '../files/index.js';
import type { ResolvedConfig } from '../config/index.js';
import type { Clock } from '../runtime-clock.js';
import { consoleLogger, type Logger } from '../logger.js';
import { MemoryPolicyStore } from './memory-policy-store.js';
import { RedisPolicyStore, redisAdmin } from './redis-policy-store.js';
import { RemoteAdmin } from './remote-admin.js';
import { StoreOwner, type StoreRole } from './store-owner.js';
import { MemoryIdempotencyStore } from '../idempotency/index.js';
import type { AdminOperations, Policy } from '../policy/policy-types.js';
import { InProcessBackend } from '../policy/in-process-backend.js';
import { PolicyOverBackend } from '../policy/policy-over-backend.js';

export interface PolicyOptions {
  config: ResolvedConfig;
  keys: KeyRing;
  clock: Clock;
  baseDir: string;
  /** Where a ledger line that could not be written is reported; stderr by default. */
  logger?: Pick<Logger, 'error'>;
  /**
   * Who opens a memory store's file: a server (the default; refused while another server holds it) or
   * `tollgate admin` (forwarded to the server holding it, if one does). Redis needs no owner.
   */
  role?: StoreRole;
}

/**
 * Starts the policy over the configured store (here, not in policy/, so that policy/ never imports the
 * stores that build on its rules: no cycle between the folders): rate limits, billing and metering, plus the admin
 * operations that change balances and keys.
 *
 * @example
 * const { policy, admin } = await createPolicy({ config, keys, clock: systemClock, baseDir: process.cwd() });
 */
export async function createPolicy(options: PolicyOptions): Promise<{ policy: Policy; admin: AdminOperations }> {
  const { config } = options;
  const logger = options.logger ?? consoleLogger;
  // The one Policy (policy/) runs the rules, denials, deadline and retries over the store's storage.
  const context = { config, keys: options.keys, clock: options.clock, logger };
  if (config.store.kind === 'redis') {
    const store = await RedisPolicyStore.connect(options);
    return { policy: new PolicyOverBackend(store, context), admin: redisAdmin(store) };
  }
  const file = config.store.kind === 'memory' && config.store.file ? resolve(options.baseDir, config.store.file) : undefined;
  if (!file) {
    // Nothing is kept: ids need only be stable for this process's life.
    options.keys.assignConfiguredIds(randomBytes(32).toString('hex'));
    const store = await MemoryPolicyStore.open(config, options.keys, options.clock, options.baseDir, options.logger);
    return { policy: new PolicyOverBackend(new InProcessBackend(store, config.organizations, options.clock, logger), context), admin: store };
  }
  // One process owns a memory store's file (issue 15 item 10); an admin command reaches it through it.
  const claim = await StoreOwner.claim(file, options.role ?? 'server');
  if (claim.holder) {
    const refuse = () => Promise.reject(new Error('An admin command forwarding to the store\'s server admits no requests'));
    const idempotency = new MemoryIdempotencyStore(options.clock, config.idempotency);
    return { policy: { admit: refuse, admitSoon: refuse, idempotency, close: async () => undefined }, admin: new RemoteAdmin(claim.holder) };
  }
  const { owner } = claim;
  try {
    options.keys.assignConfiguredIds(installationSecret(`${file}.key-id-secret`));
    const store = await MemoryPolicyStore.open(config, options.keys, options.clock, options.baseDir, options.logger);
    owner.serve(store);
    // Closing releases the file's lock once the store is closed.
    const state = { balances: store.balances.bind(store), windows: store.windows.bind(store), keyState: store.keyState.bind(store), appendLedger: store.appendLedger.bind(store), idempotency: store.idempotency, close: () => owner.release(() => store.close()) };
    return { policy: new PolicyOverBackend(new InProcessBackend(state, config.organizations, options.clock, logger), context), admin: store };
  } catch (error) {
    await owner.release();
    throw error;
  }
}
