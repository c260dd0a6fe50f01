import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import type { KeyRing } from '../auth/index.js';
import type { ResolvedConfig } from '../config/index.js';
import { ServiceError } from '../errors/index.js';
import { chargeBalances } from '../policy/admission-rules.js';
import { balanceTooLarge, checkKeyToRevoke, checkPaymentMethod, declaredOrganization, keyScopes, MAX_BALANCE_MICROS, topUpMicros } from '../policy/admin-checks.js';
import { microsToUsd, usdToMicros, type BilledTokens } from '../policy/money.js';
import { emptyWindows, openingBalances, refreshAllowance, type OrgBalances, type OrgWindows } from '../policy/org-state.js';
import { nextReset } from '../policy/allowance-period.js';
import type { AdminOperations, AdmissionRequest, KeyUsageReport, UsageReport } from '../policy/policy-types.js';
import type { PolicyState } from '../policy/in-process-backend.js';
import type { Clock } from '../runtime-clock.js';
import { generateKey, hashKey, KeyRing as KeyRingClass } from '../auth/index.js';
import { consoleLogger, type Logger } from '../logger.js';
import { MemoryIdempotencyStore } from '../idempotency/index.js';
import { emptyKeyState, keyUsageReport, refreshBudget, settleKey, type KeyState } from '../policy/key-rules.js';
import type { JournalRecord, LedgerLine } from './journal-record.js';
import { StoreFiles } from './store-files.js';
import type { SnapshotState } from './store-snapshot.js';

/**
 * The single-process policy store: state in memory, kept durable (with `store.file`) as a snapshot, a
 * journal of the changes since it and separate ledger files (see StoreFiles). Storage only: the rules
 * run over it in policy/in-process-backend.ts; a settlement is acknowledged only after its lines are
 * fsynced in the journal and the ledger.
 *
 * An organization's config `wallet` and `paymentMethod` are its opening balance, journalled once when
 * the store first sees it (as the Redis store writes them once with HSETNX): later changes go through
 * `topUp`/`setPaymentMethod`, so editing the config never silently creates or erases money.
 *
 * @example
 * const store = await MemoryPolicyStore.open(config, keys, systemClock, process.cwd());
 * const policy = new PolicyOverBackend(new InProcessBackend(store, config.organizations, systemClock, logger), context);
 */
export class MemoryPolicyStore implements PolicyState, AdminOperations {
  readonly #balances = new Map<string, OrgBalances>();
  readonly #windows = new Map<string, OrgWindows>();
  readonly #topUpsInFlight = new Map<string, number>();
  /** Organizations on file that the config no longer names: kept, so that their return finds their balances. */
  readonly #dormant = new Map<string, OrgBalances>();
  readonly #createdKeys = new Map<string, SnapshotState['keys'][number]>();
  readonly #revoked = new Set<string>();
  #files: StoreFiles | undefined;
  readonly #keyStates = new Map<string, KeyState>();
  /** One process: Idempotency-Key records in a bounded LRU map. */
  readonly idempotency: MemoryIdempotencyStore;

  private constructor(
    private readonly config: ResolvedConfig,
    private readonly keys: KeyRing,
    private readonly clock: Clock,
    private readonly logger: Pick<Logger, 'error'>,
  ) {
    this.idempotency = new MemoryIdempotencyStore(clock, config.idempotency);
    for (const name of Object.keys(config.organizations)) this.#windows.set(name, emptyWindows());
  }

  /** Reads the snapshot and journal (if the config names a file) and journals the opening balance of new organizations. */
  static async open(config: ResolvedConfig, keys: KeyRing, clock: Clock, baseDir: string, logger: Pick<Logger, 'error'> & Partial<Pick<Logger, 'info'>> = consoleLogger): Promise<MemoryPolicyStore> {
    const store = new MemoryPolicyStore(config, keys, clock, logger);
    if (config.store.kind === 'memory' && config.store.file) {
      const { file, snapshotAfterBytes, ledgerFileBytes } = config.store;
      store.#files = await StoreFiles.open({ file: resolve(baseDir, file), clock, snapshotAfterBytes, ledgerFileBytes, logger }, {
        apply: (record) => store.#apply(record),
        restore: (state) => store.#restore(state),
        capture: () => store.#capture(),
      });
    }
    const now = clock.now();
    const openings: Promise<void>[] = [];
    for (const [org, settings] of Object.entries(config.organizations)) {
      if (store.#balances.has(org)) continue;
      openings.push(store.#record({ t: 'open', at: now, org, micros: usdToMicros(settings.wallet), payment: settings.paymentMethod }));
    }
    await Promise.all(openings);
    return store;
  }

  balances(org: string): OrgBalances | undefined {
    return this.#balances.get(org);
  }

  windows(org: string): OrgWindows | undefined {
    return this.#windows.get(org);
  }

  /** A key's state, created at its first request; callers bring its budget period up to date. */
  keyState(keyId: string): KeyState {
    let state = this.#keyStates.get(keyId);
    if (!state) {
      state = emptyKeyState();
      this.#keyStates.set(keyId, state);
    }
    return state;
  }

  /**
   * A line the disk refused (full, failing) is not taken back — the answer was already produced — but the
   * operator is told what is missing (StoreFiles.settle never rejects). The ledger's id is unique across
   * restarts, unlike the admission's number. Without a file nothing is written (undefined: nothing to wait for).
   */
  appendLedger(request: AdmissionRequest, usage: BilledTokens, charge: { includedTokens: number; costMicros: number }, route: string | undefined): Promise<void> | undefined {
    if (!this.#files) return undefined;
    const line: LedgerLine = { t: 'settle', id: randomUUID(), at: this.clock.now(), org: request.principal.org, keyId: request.principal.keyId, alias: request.alias, in: usage.inputTokens, out: usage.outputTokens, included: charge.includedTokens, cost: charge.costMicros, requestId: request.requestId, route };
    // Only when there were any, so a line without cached tokens reads as before (LedgerLine).
    if (usage.cachedInputTokens > 0) line.cached = usage.cachedInputTokens;
    if (usage.cacheWriteTokens > 0) line.written = usage.cacheWriteTokens;
    return this.#files.settle(line);
  }

  async close(): Promise<void> {
    await this.#files?.close();
  }

  async topUp(org: string, usd: number): Promise<{ wallet: number }> {
    const balances = this.#org(org);
    const micros = topUpMicros(usd);
    // Top-ups still waiting for their journal line count too, so two at once cannot pass the bound together.
    const waiting = this.#topUpsInFlight.get(org) ?? 0;
    if (balances.walletMicros + waiting + micros > MAX_BALANCE_MICROS) throw balanceTooLarge(org);
    this.#topUpsInFlight.set(org, waiting + micros);
    try {
      await this.#record({ t: 'topup', at: this.clock.now(), org, micros });
    } finally {
      this.#topUpsInFlight.set(org, (this.#topUpsInFlight.get(org) ?? micros) - micros);
    }
    return { wallet: microsToUsd(balances.walletMicros) };
  }

  async setPaymentMethod(org: string, value: boolean): Promise<void> {
    this.#org(org);
    checkPaymentMethod(value);
    await this.#record({ t: 'payment', at: this.clock.now(), org, value });
  }

  async createKey(org: string, scopes?: ('models' | 'sql' | 'sql:read')[]): Promise<{ key: string; keyId: string }> {
    this.#org(org);
    const checkedScopes = keyScopes(scopes);
    const key = generateKey();
    const keyId = KeyRingClass.newKeyId();
    await this.#record({ t: 'key', at: this.clock.now(), keyId, org, scopes: checkedScopes, sha256: hashKey(key) });
    return { key, keyId };
  }

  async revokeKey(keyOrId: string): Promise<boolean> {
    checkKeyToRevoke(keyOrId);
    // Looked up, not scanned: a scan hashed the argument once per key (20,000 keys: ~5 ms a revocation).
    const record = this.keys.byId(keyOrId) ?? this.keys.find(keyOrId) ?? this.keys.find(hashKey(keyOrId));
    if (!record) return false;
    await this.#record({ t: 'revoke', at: this.clock.now(), keyId: record.keyId });
    return true;
  }

  async usage(org: string): Promise<UsageReport> {
    const balances = this.#org(org);
    const config = this.config.organizations[org]!;
    refreshAllowance(balances, config, this.clock.now());
    return {
      wallet: microsToUsd(balances.walletMicros),
      paymentMethod: balances.paymentMethod,
      includedRemaining: config.included ? Math.max(0, config.included.tokens - balances.includedUsed) : 0,
      resetAt: balances.resetAt === null ? null : new Date(balances.resetAt).toISOString(),
      requests: balances.requests,
      inputTokens: balances.inputTokens,
      outputTokens: balances.outputTokens,
      cachedInputTokens: balances.cachedInputTokens,
      cacheWriteTokens: balances.cacheWriteTokens,
      costUsd: microsToUsd(balances.costMicros),
      inFlight: this.#windows.get(org)?.inFlight ?? 0,
      keys: this.#keyUsage(org),
    };
  }

  #keyUsage(org: string): Record<string, KeyUsageReport> {
    const now = this.clock.now();
    const report: Record<string, KeyUsageReport> = {};
    for (const [keyId, state] of this.#keyStates) {
      const key = this.keys.byId(keyId);
      if (key?.org !== org) continue;
      refreshBudget(state, key, now);
      report[keyId] = keyUsageReport(key, state);
    }
    return report;
  }

  async #record(record: JournalRecord): Promise<void> {
    if (this.#files) await this.#files.record(record).catch(refusedByDisk);
    else this.#apply(record);
  }

  /** Everything a snapshot keeps; synchronous, so it is exactly the records applied so far. */
  #capture(): SnapshotState {
    const orgs: SnapshotState['orgs'] = {};
    for (const [name, balances] of this.#dormant) orgs[name] = { ...balances };
    for (const [name, balances] of this.#balances) orgs[name] = { ...balances };
    const keyStates: SnapshotState['keyStates'] = {};
    for (const [keyId, { spentMicros, budgetResetAt, requests, inputTokens, outputTokens, costMicros }] of this.#keyStates) {
      keyStates[keyId] = { spentMicros, budgetResetAt, requests, inputTokens, outputTokens, costMicros };
    }
    return { orgs, keys: [...this.#createdKeys.values()], revoked: [...this.#revoked], keyStates };
  }

  #restore(state: SnapshotState): void {
    const now = this.clock.now();
    for (const [name, balances] of Object.entries(state.orgs)) {
      const config = this.config.organizations[name];
      if (!config) {
        this.#dormant.set(name, balances);
        continue;
      }
      // The config may have changed the allowance since the snapshot: its reset instant follows the config.
      if (!config.included) balances.resetAt = null;
      else if (balances.resetAt === null) Object.assign(balances, { includedUsed: 0, resetAt: nextReset(config.included, now) });
      this.#balances.set(name, balances);
    }
    for (const key of state.keys) this.#apply({ t: 'key', at: now, ...key });
    for (const keyId of state.revoked) this.#apply({ t: 'revoke', at: now, keyId });
    // Per-key totals and budget spend; windows (limits, in-flight reservations) do not outlive the process.
    for (const [keyId, totals] of Object.entries(state.keyStates)) this.#keyStates.set(keyId, { ...emptyKeyState(), ...totals });
  }

  /** Replays one journal line onto the state: used at start-up and for admin changes. */
  #apply(record: JournalRecord): void {
    switch (record.t) {
      case 'open': {
        const config = this.config.organizations[record.org];
        if (this.#balances.has(record.org) || this.#dormant.has(record.org)) return; // the first opening wins, as HSETNX in Redis
        if (!config) this.#dormant.set(record.org, { walletMicros: record.micros, paymentMethod: record.payment, includedUsed: 0, resetAt: null, requests: 0, inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, cacheWriteTokens: 0, costMicros: 0 });
        else this.#balances.set(record.org, { ...openingBalances(config, record.at), walletMicros: record.micros, paymentMethod: record.payment });
        return;
      }
      case 'settle': {
        const balances = this.#opened(record.org, record.at);
        const config = this.config.organizations[record.org];
        if (!balances) return;
        // Replayed at its own instant, so usage of an earlier period does not count against this one.
        if (config) refreshAllowance(balances, config, record.at);
        chargeBalances(balances, { inputTokens: record.in, outputTokens: record.out, cachedInputTokens: record.cached ?? 0, cacheWriteTokens: record.written ?? 0 }, { includedTokens: record.included, costMicros: record.cost });
        // The key's totals and its budget period's spend, replayed at the line's own instant.
        if (record.keyId) {
          const keyState = this.keyState(record.keyId);
          refreshBudget(keyState, this.keys.byId(record.keyId) ?? {}, record.at);
          settleKey(keyState, undefined, { inputTokens: record.in, outputTokens: record.out }, record.cost);
        }
        return;
      }
      case 'topup': {
        const balances = this.#opened(record.org, record.at);
        if (balances) balances.walletMicros += record.micros;
        return;
      }
      case 'payment': {
        const balances = this.#opened(record.org, record.at);
        if (balances) balances.paymentMethod = record.value;
        return;
      }
      case 'key':
        this.#createdKeys.set(record.keyId, { keyId: record.keyId, org: record.org, scopes: record.scopes, sha256: record.sha256 });
        this.keys.add({ keyId: record.keyId, org: record.org, scopes: record.scopes, sha256: record.sha256, revoked: this.#revoked.has(record.keyId) });
        return;
      case 'revoke':
        this.#revoked.add(record.keyId);
        this.keys.revoke(record.keyId);
        return;
    }
  }

  /** An organization's balances; one without an opening line yet opens from the config at `at`. */
  #opened(org: string, at: number): OrgBalances | undefined {
    const existing = this.#balances.get(org) ?? this.#dormant.get(org);
    if (existing) return existing;
    const config = this.config.organizations[org];
    if (!config) return undefined;
    const balances = openingBalances(config, at);
    this.#balances.set(org, balances);
    return balances;
  }

  #org(org: string): OrgBalances {
    declaredOrganization(this.config, org);
    const balances = this.#balances.get(org);
    if (!balances) throw new ServiceError('invalid_request', `Unknown organization "${org}"`);
    return balances;
  }
}

/**
 * A change the journal refused (a full disk, an I/O error) was not applied (StoreFiles applies a record only once
 * it is durable): the operator is told so, as a store that cannot be reached is reported (503 policy_unavailable,
 * README "Command line"), not with a bare 500 that leaves them guessing whether the money went in.
 */
function refusedByDisk(cause: unknown): never {
  // The errno code, not the message: an organization's admin sees this in the console, and a message may name the server's paths.
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  const reason = typeof code === 'string' ? code : 'the disk refused it';
  throw new ServiceError('policy_unavailable', `The store could not write this change to its journal (${reason}); nothing was changed. Make room on its disk, then repeat it`, { cause });
}
