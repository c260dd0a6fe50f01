import type { ParsedConfig, ResolvedConfig } from './config/index.js';
import { KeyRing } from './auth/index.js';
import { SqlService, ungrantedWarning, type SqlServiceOptions } from './sql/index.js';
import type { AdminOperations, Policy } from './policy/index.js';
import { createPolicy } from './store/index.js';
import { Gateway } from './gateway.js';
import type { Clock } from './runtime-clock.js';
import type { Logger } from './logger.js';

export type { Logger } from './logger.js';

export interface RuntimeOptions {
  env: NodeJS.ProcessEnv;
  clock: Clock;
  /** Relative database and state files resolve against this directory. */
  baseDir: string;
  logger: Logger;
  sqlAssets?: SqlAssets;
  /** Metrics hooks of the file databases' journals, when metrics are on. */
  journalHooks?: SqlServiceOptions['journalHooks'];
}

/** Paths a bundling host gives for sql.js's wasm and the SQL worker script. */
export interface SqlAssets {
  wasmPath?: string;
  workerUrl?: URL;
}


/**
 * The started engines behind one `tollgate()` instance. Created once, lazily, on the first request or
 * `ready()`; each engine starts only when first used, so an app that never calls SQL never loads sql.js.
 */
export class Runtime {
  readonly config: ResolvedConfig;
  readonly keys: KeyRing;
  readonly gateway: Gateway;
  #sql: Promise<SqlService> | undefined;
  #policy: Promise<{ policy: Policy; admin: AdminOperations }> | undefined;
  // Derived once: every request asks for these, and a fresh .then() per request is garbage per request.
  #policyOnly: Promise<Policy> | undefined;
  #keysReady: Promise<KeyRing> | undefined;

  constructor(
    parsed: ParsedConfig,
    readonly options: RuntimeOptions,
  ) {
    this.config = parsed.config;
    this.keys = KeyRing.fromConfig(parsed.config.keys);
    this.gateway = new Gateway(parsed, options);
  }

  sql(): Promise<SqlService> {
    if (!this.#sql) {
      const warning = ungrantedWarning(this.config);
      if (warning) this.options.logger.info(warning);
    }
    this.#sql ??= SqlService.open(this.config.sql, { baseDir: this.options.baseDir, ...this.options.sqlAssets, journalHooks: this.options.journalHooks });
    return this.#sql;
  }

  policy(): Promise<Policy> {
    return (this.#policyOnly ??= this.#policyAndAdmin().then((p) => p.policy));
  }

  admin(): Promise<AdminOperations> {
    return this.#policyAndAdmin().then((p) => p.admin);
  }

  /**
   * The key ring, once the policy store is up: a shared store answers for keys created on other
   * instances, so authentication waits for it.
   */
  keyRing(): Promise<KeyRing> {
    const keys = () => this.keys;
    return (this.#keysReady ??= this.#policyAndAdmin().then(keys, keys));
  }

  async ready(): Promise<void> {
    // A database that cannot load rejects here (503 database_unavailable) and keeps retrying by itself.
    await Promise.all([this.sql().then((sql) => sql.ready()), this.policy()]);
  }

  async close(): Promise<void> {
    const closing: Promise<unknown>[] = [this.gateway.close()];
    if (this.#sql) closing.push(this.#sql.then((sql) => sql.close()));
    if (this.#policy) closing.push(this.#policy.then(({ policy }) => policy.close()));
    await Promise.allSettled(closing);
  }

  #policyAndAdmin(): Promise<{ policy: Policy; admin: AdminOperations }> {
    this.#policy ??= createPolicy({ config: this.config, keys: this.keys, clock: this.options.clock, baseDir: this.options.baseDir, logger: this.options.logger });
    return this.#policy;
  }
}
