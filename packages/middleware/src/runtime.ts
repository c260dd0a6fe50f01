import type { ParsedConfig, ResolvedConfig } from './config/index.js';
import { KeyRing } from './auth/index.js';
import { SqlService, ungrantedWarning, type SqlServiceOptions } from './sql/index.js';
import type { AdminOperations, Policy } from './policy/index.js';
import { createPolicy } from './store/index.js';
import { Gateway } from './gateway.js';
import { OrgSlots } from './http/index.js';
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
 * `ready()`, and it starts the policy store then (every route authenticates through it); SQL starts only
 * when first used, so an app that never calls SQL never loads sql.js.
 */
export class Runtime {
  readonly config: ResolvedConfig;
  readonly keys: KeyRing;
  readonly gateway: Gateway;
  /** Request bodies arriving, per organization, within its `limits.concurrency` (http/org-slots.ts). */
  readonly uploads: OrgSlots;
  /** Token counts running, per organization, within its `limits.concurrency` (http/org-slots.ts). */
  readonly counts: OrgSlots;
  /** SQL requests in flight, per organization, within its `limits.concurrency` (http/org-slots.ts). */
  readonly sqlInFlight: OrgSlots;
  #sql: Promise<SqlService> | undefined;
  #readySql: SqlService | undefined;
  readonly #policy: Promise<{ policy: Policy; admin: AdminOperations }>;
  readonly #policyOnly: Promise<Policy>;
  readonly #keysReady: Promise<KeyRing>;
  /** The policy once its store is up, for the request path to take without an await (issue 19). */
  #readyPolicy: Policy | undefined;
  #keysAreReady = false;

  constructor(
    parsed: ParsedConfig,
    readonly options: RuntimeOptions,
  ) {
    this.config = parsed.config;
    this.keys = KeyRing.fromConfig(parsed.config.keys);
    this.gateway = new Gateway(parsed, options);
    const concurrencyOf = (org: string) => this.config.organizations[org]?.limits.concurrency;
    this.uploads = new OrgSlots(concurrencyOf, 'request bodies arriving');
    this.counts = new OrgSlots(concurrencyOf, 'token counts running');
    this.sqlInFlight = new OrgSlots(concurrencyOf, 'SQL requests in flight');
    this.#policy = createPolicy({ config: this.config, keys: this.keys, clock: options.clock, baseDir: options.baseDir, logger: options.logger });
    this.#policyOnly = this.#policy.then((p) => p.policy);
    // A store that cannot start is answered where it is awaited (503 policy_unavailable), not as an unhandled rejection.
    this.#policyOnly.then((policy) => (this.#readyPolicy = policy), () => undefined);
    // A shared store answers for keys created on other instances, so authentication waits for it.
    const keys = () => this.keys;
    this.#keysReady = this.#policy.then(keys, keys);
    this.#keysReady.then(() => (this.#keysAreReady = true));
  }

  sql(): Promise<SqlService> {
    if (!this.#sql) {
      const warning = ungrantedWarning(this.config);
      if (warning) this.options.logger.info(warning);
    }
    if (!this.#sql) {
      this.#sql = SqlService.open(this.config.sql, { baseDir: this.options.baseDir, ...this.options.sqlAssets, journalHooks: this.options.journalHooks, organizations: Object.keys(this.config.organizations) });
      // A service that cannot open is answered where sql() is awaited, not as an unhandled rejection here.
      this.#sql.then((sql) => (this.#readySql = sql), () => undefined);
    }
    return this.#sql;
  }

  /** sql()'s value once it resolved, else undefined (then await sql()): the SQL endpoint skips an await per request. */
  sqlIfReady(): SqlService | undefined {
    return this.#readySql;
  }

  policy(): Promise<Policy> {
    return this.#policyOnly;
  }

  /** policy()'s value once it resolved, else undefined (then await policy()). */
  policyIfReady(): Policy | undefined {
    return this.#readyPolicy;
  }

  admin(): Promise<AdminOperations> {
    return this.#policy.then((p) => p.admin);
  }

  /** The key ring, once the policy store is up. */
  keyRing(): Promise<KeyRing> {
    return this.#keysReady;
  }

  /** keyRing()'s value once it resolved, else undefined (then await keyRing()). */
  keyRingIfReady(): KeyRing | undefined {
    return this.#keysAreReady ? this.keys : undefined;
  }

  async ready(): Promise<void> {
    // A database that cannot load rejects here (503 database_unavailable) and keeps retrying by itself.
    await Promise.all([this.sql().then((sql) => sql.ready()), this.policy()]);
  }

  async close(): Promise<void> {
    const closing: Promise<unknown>[] = [this.gateway.close(), this.#policy.then(({ policy }) => policy.close())];
    if (this.#sql) closing.push(this.#sql.then((sql) => sql.close()));
    await Promise.allSettled(closing);
  }
}
