import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import type { Cluster, Redis } from 'ioredis';
import { generateKey, hashKey, KeyRing, type KeyRecord } from '../auth/index.js';
import { longestRequestMs, type OrganizationConfig, type ResolvedConfig } from '../config/index.js';
import { ServiceError } from '../errors/index.js';
import { keptPeriodEnd, nextReset } from '../policy/allowance-period.js';
import { checkKeyToRevoke, checkPaymentMethod, declaredOrganization, keyScopes, MAX_BALANCE_MICROS, balanceTooLarge, topUpMicros } from '../policy/admin-checks.js';
import { billedTokens, microsToUsd, picoRates, usdToMicros } from '../policy/money.js';
import { worstCaseMicros, worstCaseTokens } from '../policy/admission-rules.js';
import { rateLimitState } from '../policy/rate-limit-state.js';
import type { AdminOperations, AdmissionRequest, KeyUsageReport, Usage, UsageReport } from '../policy/policy-types.js';
import type { Admitted, AdmitAnswer, PolicyBackend, Refusal, SettlementRetries } from '../policy/policy-backend.js';
import type { Clock } from '../runtime-clock.js';
import { consoleLogger, type Logger } from '../logger.js';
import { admitScript, settleScript } from './redis-scripts.js';
import { RedisIdempotencyStore } from './redis-idempotency-store.js';
import { paymentMethodScript, topUpScript } from './redis-admin-scripts.js';
import { connectRedis, type RedisConnection } from './redis-connection.js';
import { passesByItself } from './redis-refusals.js';
import { keyKeys, orgKeys, type KeyKeys, type OrgKeys } from './redis-keys.js';
import { SettlementSpool, type SpooledSettlement } from './settlement-spool.js';
import { RedisLedgerExport } from './redis-ledger-export.js';
import { migrateLegacyBalances, migrateLegacyLedger, upgradeSpooledSettlement } from './redis-legacy-layout.js';

/** A release whose admission may or may not have run: nothing used, no window to correct. */
const NOTHING_USED: Usage = { inputTokens: 0, outputTokens: 0 };
const REVOKED: Refusal = { verdict: 'revoked' };
const WALLET_EMPTY: Refusal = { verdict: 'wallet' };
/** A catch-up (naming configured keys, reading revocations) that failed is tried again after this long. */
const CATCH_UP_RETRY_MS = 1_000;
/**
 * How often the subscription is pinged: a subscriber only listens, so a connection that died without a FIN (a NAT or
 * firewall that dropped its state) was never noticed, and every revocation after it was missed on the SQL endpoint.
 */
const SUBSCRIPTION_PING_MS = 2_000;

/** What a Redis admission left for its settlement: its lease id and the seconds its token estimates count in. */
export interface RedisTicket {
  id: string;
  tokenSecond: number | undefined;
  keyTokenSecond: string;
}

type ScriptedRedis = (Redis | Cluster) & {
  tollgateAdmit(...args: (string | number)[]): Promise<string[]>;
  tollgateSettle(...args: (string | number)[]): Promise<number>;
  tollgateTopUp(...args: (string | number)[]): Promise<[string, string]>;
  tollgatePaymentMethod(...args: (string | number)[]): Promise<number>;
};

/**
 * The multi-instance policy store: rate-limit windows, concurrency slots, balances, allowances and key
 * revocations live in Redis (one server or a Cluster) and change atomically in Lua (one round trip to
 * admit, one to settle), each script within one organization's hash slot (redis-keys.ts); the ledger
 * is a stream per organization. Commands fail fast while Redis is away (no offline queue), so admission
 * answers 503 policy_unavailable instead of running unmetered; settlements that could not reach Redis
 * are retried until it is back, from memory and, with `store.pendingFile`, from a local file that
 * outlives the process.
 */
export class RedisPolicyStore implements PolicyBackend<RedisTicket, SpooledSettlement>, AdminOperations {
  readonly inProcess = false;
  #spool: SettlementSpool | undefined;
  #waiting: SpooledSettlement[] = [];
  #ledgerExport: RedisLedgerExport | undefined;

  /** Idempotency-Key records, shared by every instance. */
  readonly idempotency: RedisIdempotencyStore;

  /** A second connection in subscriber mode: revocations made on any instance reach this one's KeyRing at once. */
  #subscriber: Redis | Cluster | undefined;
  #subscriptionPing: NodeJS.Timeout | undefined;

  private constructor(
    private readonly redis: ScriptedRedis,
    private readonly config: ResolvedConfig,
    private readonly keys: KeyRing,
    private readonly clock: Clock,
    private readonly prefix: string,
    private readonly logger: Pick<Logger, 'error'>,
    private readonly connection: RedisConnection,
  ) {
    this.idempotency = new RedisIdempotencyStore(redis, prefix, { ...config.idempotency, runningTtlMs: longestRequestMs(config.relay) });
  }

  static async connect(options: { config: ResolvedConfig; keys: KeyRing; clock: Clock; baseDir: string; logger?: Pick<Logger, 'error'> }): Promise<RedisPolicyStore> {
    const { config } = options;
    if (config.store.kind !== 'redis') throw new Error('RedisPolicyStore needs store.kind "redis"');
    const connection: RedisConnection = config.store.cluster ? { cluster: config.store.cluster } : { url: config.store.url! };
    const redis = connectRedis(connection, { timeoutMs: config.policyTimeoutMs, failFast: true }) as ScriptedRedis;
    redis.on('error', () => undefined); // surfaced per command as policy_unavailable
    redis.defineCommand('tollgateAdmit', { numberOfKeys: 10, lua: admitScript });
    redis.defineCommand('tollgateSettle', { numberOfKeys: 10, lua: settleScript });
    redis.defineCommand('tollgateTopUp', { numberOfKeys: 2, lua: topUpScript });
    redis.defineCommand('tollgatePaymentMethod', { numberOfKeys: 2, lua: paymentMethodScript });
    const store = new RedisPolicyStore(redis, config, options.keys, options.clock, config.store.prefix, options.logger ?? consoleLogger, connection);
    if (config.store.pendingFile) {
      store.#spool = await SettlementSpool.open(resolve(options.baseDir, config.store.pendingFile));
      // Left by an earlier process that stopped during an outage: sent again once Redis answers.
      store.#waiting = store.#spool.waiting.map((settlement) => upgradeSpooledSettlement(store.prefix, settlement));
    }
    try {
      await redis.connect();
      await store.#initialise();
      await store.#nameConfiguredKeys();
      await store.#syncRevocations();
    } catch (error) {
      // Start anyway: admission answers policy_unavailable until Redis is reachable and takes writes. A Redis that
      // answers but refuses writes (out of memory, a replica) sends no 'ready' again once it takes them: the
      // catch-up is retried until it runs (before, the start failed for good: 503 until the process restarted).
      if (redis.status === 'ready' && !passesByItself(error)) throw error;
      store.#catchUpUntilDone();
    }
    // Either connection may come back first after an outage; catching up needs this one, so it tries too.
    redis.on('ready', () => store.#catchUpUntilDone());
    options.keys.setRemoteLookup((sha256) => store.#lookupKey(sha256));
    const ledger = config.store.ledger;
    if (ledger !== false) {
      store.#ledgerExport = new RedisLedgerExport({
        redis,
        organizations: Object.keys(config.organizations),
        keysOf: (org) => store.#orgKeys(org),
        dir: resolve(options.baseDir, ledger.dir),
        maxBytes: ledger.maxBytes,
        everyMs: ledger.exportEveryMs,
        logger: store.logger,
      });
      store.#ledgerExport.start();
    }
    // Wait (briefly) for the subscription, so revocations made right after start-up are not missed.
    await Promise.race([store.#subscribeToRevocations(), new Promise((resolve) => setTimeout(resolve, config.policyTimeoutMs).unref())]);
    return store;
  }

  /**
   * Admission checks the organization's revocation set itself; this keeps each KeyRing current too, so endpoints
   * without admission (the SQL endpoint) refuse a revoked key at once. After every (re)connection the
   * whole set is read again, so a revocation made while this instance was cut off is not missed.
   */
  #subscribeToRevocations(): Promise<void> {
    const channel = `${this.prefix}revocations`;
    let subscribed: () => void = () => undefined;
    const first = new Promise<void>((resolve) => (subscribed = resolve));
    const subscriber = connectRedis(this.connection, { timeoutMs: this.config.policyTimeoutMs, failFast: false });
    this.#subscriber = subscriber;
    subscriber.on('error', () => undefined);
    subscriber.on('message', (_channel: string, keyId: string) => this.keys.revoke(keyId));
    // Unanswered within the deadline, the ping drops the connection (socketTimeout): the reconnection subscribes
    // again and reads every revocation made meanwhile. Only while connected, so no ping queues while Redis is away.
    this.#subscriptionPing = setInterval(() => {
      if (subscriber.status === 'ready') subscriber.ping().catch(() => undefined);
    }, SUBSCRIPTION_PING_MS);
    this.#subscriptionPing.unref();
    subscriber.on('ready', () => {
      subscriber
        .subscribe(channel)
        .then(() => this.#catchUp())
        .then(subscribed)
        .catch(() => this.#catchUpUntilDone()); // the next 'ready' of either connection tries again too
    });
    subscriber.connect().catch(() => undefined);
    return first;
  }

  /**
   * After a (re)connection: name the configured keys if this instance has not yet, and read the revocations
   * made while it was cut off. It runs on both connections' 'ready', since it needs the policy connection and
   * the subscriber may be back first: a catch-up that ran only on the subscriber's would then fail and never run
   * again, leaving configured keys at 503 and missed revocations accepted.
   */
  #catchUp(): Promise<void> {
    return this.#nameConfiguredKeys().then(() => this.#syncRevocations());
  }

  #catchUpRetry: NodeJS.Timeout | undefined;
  #closed = false;

  /** #catchUp, and again every second until it has run once: Redis may refuse writes without disconnecting. */
  #catchUpUntilDone(): void {
    this.#catchUp().catch(() => {
      if (this.#closed || this.#catchUpRetry) return;
      this.#catchUpRetry = setTimeout(() => {
        this.#catchUpRetry = undefined;
        this.#catchUpUntilDone();
      }, CATCH_UP_RETRY_MS);
      this.#catchUpRetry.unref();
    });
  }

  /** Revocations are kept per organization (in its slot, where admission checks them): read each set. */
  async #syncRevocations(): Promise<void> {
    const orgs = new Set([...Object.keys(this.config.organizations), ...this.keys.records().map((record) => record.org)]);
    const sets = await Promise.all([...orgs].map((org) => this.redis.smembers(this.#orgKeys(org).revoked)));
    const revoked = new Set(sets.flat());
    for (const record of this.keys.records()) if (revoked.has(record.keyId)) record.revoked = true;
    // Revoked under the id an earlier version derived from the key's bare hash: carried over to its id now.
    for (const [legacyId, record] of this.keys.legacyIds()) {
      if (!revoked.has(legacyId) || this.#secret === undefined) continue;
      record.revoked = true;
      if (!revoked.has(record.keyId)) await this.redis.sadd(this.#orgKeys(record.org).revoked, record.keyId);
    }
  }

  /** The key-id secret this instance named its configured keys with (written back after Redis lost its data). */
  #secret: string | undefined;

  /**
   * Configured keys are named with an HMAC under one secret that every instance reads from Redis (made
   * once, by whichever instance comes first), so their ids match across instances and restarts. Until
   * Redis has answered once, those keys authenticate as policy_unavailable.
   */
  async #nameConfiguredKeys(): Promise<void> {
    const key = `${this.prefix}key-id-secret`;
    // Written again after every (re)connection and after Redis lost its data: an instance that already named
    // its keys puts its secret back, so an instance started after the loss names them alike (and revocations
    // and per-key state, kept by key id, stay shared); if another instance wrote one first, it is adopted.
    await this.redis.set(key, this.#secret ?? randomBytes(32).toString('hex'), 'NX');
    const secret = await this.redis.get(key);
    if (!secret) throw new Error(`Redis lost ${key}`);
    if (secret !== this.#secret) this.keys.assignConfiguredIds(secret);
    this.#secret = secret;
  }

  /**
   * One round trip (two when Redis lost its data): the admit script checks and records the organization's
   * and the key's limits and money atomically in Lua (redis-scripts.ts) and answers a verdict word.
   */
  async admit(request: AdmissionRequest, org: OrganizationConfig, now: number, attempt: string): Promise<AdmitAnswer<RedisTicket>> {
    const k = this.#orgKeys(request.principal.org);
    const { keyId, limits, budget } = request.principal;
    const kk = this.#keyKeys(request.principal.org, keyId);
    const admitOnce = () =>
      this.redis.tollgateAdmit(
        k.bal, k.win, k.slots, k.revoked, k.lapsed, k.reservations, kk.state, kk.win, kk.slots, kk.reservations,
        now, attempt, keyId, org.limits.rpm ?? 0, org.limits.tpm ?? 0, org.limits.concurrency ?? 0,
        request.estimatedInputTokens, request.billing, org.included?.tokens ?? -1, org.included ? nextReset(org.included, now) : '', longestRequestMs(this.config.relay),
        usdToMicros(org.overdraft), worstCaseMicros(request),
        limits?.rpm ?? 0, limits?.tpm ?? 0, limits?.concurrency ?? 0, budget ? usdToMicros(budget.usd) : -1, budget ? nextReset({ period: budget.period }, now) : '',
        worstCaseTokens(request),
      );
    await this.#ensureInitialised();
    let answer = await admitOnce();
    if (answer[0] === 'uninitialised') {
      // A Redis that lost its data (no persistence) starts again from the config's opening balances.
      await this.#initialise();
      await this.#nameConfiguredKeys();
      answer = await admitOnce();
    }
    // The admit script answers billing's fields first, then the key's window second (redis-scripts.ts).
    const [verdict, detail, requestsCounted, tokensCounted, head, keyDetail] = answer;
    switch (verdict) {
      case 'ok':
        // The reservation is held and released in Redis (the settle script), not by this instance.
        return {
          verdict: 'ok',
          id: attempt,
          tokenSecond: detail ? Number(detail) : undefined,
          keyTokenSecond: keyDetail ?? '',
          limits: head ? rateLimitState(org.limits, Number(requestsCounted || 0), Number(tokensCounted || 0), Number(head), now) : undefined,
        };
      case 'revoked':
        return REVOKED;
      case 'rate':
        return { verdict: 'rate', waitMs: Number(detail) };
      case 'wallet':
        return WALLET_EMPTY;
      case 'budget':
        return { verdict: 'budget', renewsAt: Number(detail) };
      case 'exhausted':
        return { verdict: 'exhausted', resetAt: Number(detail) };
      default:
        return { verdict: 'unexpected', answer: String(verdict) };
    }
  }

  settle(ticket: Admitted<RedisTicket>, request: AdmissionRequest, usage: Usage, route: string | undefined, unsent: (pending: SpooledSettlement) => Promise<void>): Promise<number | undefined> {
    return this.#settle(ticket.id, request, usage, ticket.tokenSecond, request.estimatedInputTokens, ticket.keyTokenSecond, route, unsent);
  }

  /**
   * The script may still have run (a reply lost or late): release whatever it may hold. Harmless if it never
   * ran. Its tokens stay counted (whether it ran is unknown): at worst the estimate, until it leaves the window.
   */
  abandon(attempt: string, request: AdmissionRequest, error: unknown, unsent: (pending: SpooledSettlement) => Promise<void>): void {
    if (!neverSent(error)) void this.#settle(attempt, request, NOTHING_USED, undefined, 0, '', undefined, unsent);
  }

  /** Settlements Redis did not take, retried by the Policy (policy/settlement-retry.ts); with `store.pendingFile`, also on disk. */
  get retries(): SettlementRetries<SpooledSettlement> {
    return { waiting: this.#waiting, spool: this.#spool, resend: (settlement) => this.redis.tollgateSettle(...settlement.args) };
  }

  /** Called by the Policy once its retries are drained (what Redis still could not take stays in the pending file). */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#catchUpRetry);
    clearInterval(this.#subscriptionPing);
    await this.#legacyLedger;
    await this.idempotency.close();
    await this.#ledgerExport?.close();
    this.#subscriber?.disconnect();
    this.redis.disconnect();
  }

  async topUp(org: string, usd: number): Promise<{ wallet: number }> {
    this.#requireOrg(org);
    const micros = topUpMicros(usd);
    await this.#ensureInitialised();
    const k = this.#orgKeys(org);
    const [verdict, wallet] = await this.redis.tollgateTopUp(k.bal, k.changes, micros, MAX_BALANCE_MICROS, org, this.clock.now());
    if (verdict !== 'ok') throw balanceTooLarge(org);
    return { wallet: microsToUsd(Number(wallet)) };
  }

  async setPaymentMethod(org: string, value: boolean): Promise<void> {
    this.#requireOrg(org);
    checkPaymentMethod(value);
    await this.#ensureInitialised();
    const k = this.#orgKeys(org);
    await this.redis.tollgatePaymentMethod(k.bal, k.changes, value ? '1' : '0', org, this.clock.now());
  }

  async createKey(org: string, scopes?: ('models' | 'sql' | 'sql:read')[]): Promise<{ key: string; keyId: string }> {
    this.#requireOrg(org);
    const key = generateKey();
    const record: KeyRecord = { keyId: KeyRing.newKeyId(), org, scopes: keyScopes(scopes), sha256: hashKey(key), revoked: false };
    await this.redis.hset(`${this.prefix}keys`, record.sha256, JSON.stringify(record));
    this.keys.add(record);
    return { key, keyId: record.keyId };
  }

  /** Revokes a configured key or one created on any instance, by key, SHA-256 or key id. */
  async revokeKey(keyOrId: string): Promise<boolean> {
    checkKeyToRevoke(keyOrId);
    const record = this.keys.byId(keyOrId) ?? this.keys.find(keyOrId) ?? this.keys.find(hashKey(keyOrId)) ?? (await this.#findStoredKey(keyOrId));
    if (!record) return false;
    // In the key's organization's slot, where admission reads it; then told to every instance.
    await this.redis.sadd(this.#orgKeys(record.org).revoked, record.keyId);
    await this.redis.publish(`${this.prefix}revocations`, record.keyId);
    this.keys.add({ ...record, revoked: true });
    return true;
  }

  /** A key created on another instance that this one has not seen yet. */
  async #findStoredKey(keyOrId: string): Promise<KeyRecord | undefined> {
    const stored = await this.redis.hgetall(`${this.prefix}keys`);
    const direct = (Object.hasOwn(stored, keyOrId) ? stored[keyOrId] : undefined) ?? stored[hashKey(keyOrId)];
    if (direct) return JSON.parse(direct) as KeyRecord;
    return Object.values(stored)
      .map((json) => JSON.parse(json) as KeyRecord)
      .find((record) => record.keyId === keyOrId);
  }

  async usage(org: string): Promise<UsageReport> {
    const config = this.#requireOrg(org);
    await this.#ensureInitialised();
    const now = this.clock.now();
    const k = this.#orgKeys(org);
    const [bal, inFlight] = await Promise.all([this.redis.hgetall(k.bal), this.redis.zcount(k.slots, `(${now}`, '+inf')]);
    const resetAt = bal.resetAt ? Number(bal.resetAt) : null;
    const refilled = resetAt !== null && now >= resetAt;
    return {
      wallet: microsToUsd(Number(bal.wallet ?? 0)),
      paymentMethod: bal.payment === '1',
      includedRemaining: config.included ? Math.max(0, config.included.tokens - (refilled ? 0 : Number(bal.incUsed ?? 0))) : 0,
      resetAt: resetAt === null ? null : new Date(config.included ? (refilled ? nextReset(config.included, now) : keptPeriodEnd(config.included, resetAt, now)) : resetAt).toISOString(),
      requests: Number(bal.requests ?? 0),
      inputTokens: Number(bal.in ?? 0),
      outputTokens: Number(bal.out ?? 0),
      cachedInputTokens: Number(bal.cachedIn ?? 0),
      cacheWriteTokens: Number(bal.cacheWrite ?? 0),
      costUsd: microsToUsd(Number(bal.cost ?? 0)),
      inFlight,
      keys: await this.#keyUsage(org, now),
    };
  }

  /** Per key of the organization that made requests: its totals and budget, from its state hash. */
  async #keyUsage(org: string, now: number): Promise<Record<string, KeyUsageReport>> {
    const records = this.keys.records().filter((record) => record.org === org);
    const states = await Promise.all(
      records.map((record) => {
        const kk = keyKeys(this.prefix, org, record.keyId);
        return Promise.all([this.redis.hgetall(kk.state), this.redis.zcount(kk.slots, `(${now}`, '+inf')]);
      }),
    );
    const report: Record<string, KeyUsageReport> = {};
    records.forEach((record, i) => {
      const [state, inFlight] = states[i]!;
      if (Object.keys(state).length === 0) return;
      const resetAt = state.resetAt ? Number(state.resetAt) : null;
      const renewed = resetAt === null || now >= resetAt;
      const spent = renewed ? 0 : Number(state.spent ?? 0);
      report[record.keyId] = {
        requests: Number(state.requests ?? 0),
        inputTokens: Number(state.in ?? 0),
        outputTokens: Number(state.out ?? 0),
        costUsd: microsToUsd(Number(state.cost ?? 0)),
        budgetRemaining: record.budget ? microsToUsd(Math.max(0, usdToMicros(record.budget.usd) - spent)) : null,
        budgetResetAt: record.budget ? new Date(renewed ? nextReset(record.budget, now) : keptPeriodEnd(record.budget, resetAt!, now)).toISOString() : null,
        inFlight,
      };
    });
    return report;
  }

  /** Resolves to the micro-dollars charged, or undefined when Redis did not take it now (kept to retry). */
  #settle(id: string, request: AdmissionRequest, usage: Usage, tokenSecond: number | undefined, estimatedTokens: number, keyTokenSecond: string, route = '', unsent: (pending: SpooledSettlement) => Promise<void>): Promise<number | undefined> {
    const org = this.config.organizations[request.principal.org]!;
    const k = this.#orgKeys(request.principal.org);
    const kk = this.#keyKeys(request.principal.org, request.principal.keyId);
    const now = this.clock.now();
    const tokens = billedTokens(usage);
    const rates = picoRates(request.price);
    const settlement: SpooledSettlement = {
      id,
      args: [
        k.bal, k.win, k.slots, k.ledger, k.lapsed, k.reservations, kk.state, kk.win, kk.slots, kk.reservations,
        id, tokens.inputTokens, tokens.outputTokens, request.billing, org.included?.tokens ?? -1,
        rates.input, rates.output, now, org.included ? nextReset(org.included, now) : '',
        request.principal.org, request.principal.keyId, request.alias, tokenSecond ?? '', estimatedTokens, request.requestId ?? '',
        // i17-billing's ARGVs (16–19) first, then i22's key window second and route (20, 21): redis-scripts.ts.
        tokens.cachedInputTokens, tokens.cacheWriteTokens, rates.cachedInput, rates.cacheWrite, keyTokenSecond, route,
      ],
    };
    return this.redis.tollgateSettle(...settlement.args).then(
      // -1: this admission was settled already (never charged twice): nothing charged now.
      (cost) => Math.max(0, Number(cost)),
      // Kept by the Policy and sent again until Redis takes it (policy/settlement-retry.ts).
      () => unsent(settlement).then(() => undefined),
    );
  }

  #initialised = false;
  #legacyLedger: Promise<void> | undefined;

  async #ensureInitialised(): Promise<void> {
    if (!this.#initialised) await this.#initialise();
    if (this.#secret === undefined) await this.#nameConfiguredKeys();
  }

  /**
   * Opening balances from the config, written once: HSETNX leaves what other instances already changed.
   * One transaction per organization, since on a Cluster organizations live in different slots.
   */
  async #initialise(): Promise<void> {
    const now = this.clock.now();
    if (!this.connection.cluster) {
      const redis = this.redis as Redis;
      // Revocations recorded under a configured key's legacy id are moved too (to its organization's set).
      const legacyRecords = [...this.keys.legacyIds()].map(([keyId, record]) => ({ ...record, keyId }));
      await migrateLegacyBalances(redis, this.prefix, Object.keys(this.config.organizations), [...this.keys.records(), ...legacyRecords], now);
      // The old ledger stream may be long: moved in the background, while the instance serves.
      this.#legacyLedger ??= migrateLegacyLedger(redis, this.prefix).catch((error: unknown) => {
        this.#legacyLedger = undefined;
        this.logger.error('ledger: the old single ledger stream could not be moved yet; the next start tries again', error);
      });
    }
    await Promise.all(
      Object.entries(this.config.organizations).map(([name, org]) => {
        const bal = this.#orgKeys(name).bal;
        return this.redis
          .multi()
          .hsetnx(bal, 'wallet', usdToMicros(org.wallet))
          .hsetnx(bal, 'payment', org.paymentMethod ? '1' : '0')
          .hsetnx(bal, 'incUsed', 0)
          .hsetnx(bal, 'resetAt', org.included ? nextReset(org.included, now) : '')
          .exec();
      }),
    );
    this.#initialised = true;
  }

  async #lookupKey(sha256: string): Promise<KeyRecord | undefined> {
    const json = await this.redis.hget(`${this.prefix}keys`, sha256);
    if (!json) return undefined;
    const record = JSON.parse(json) as KeyRecord;
    return { ...record, revoked: (await this.redis.sismember(this.#orgKeys(record.org).revoked, record.keyId)) === 1 };
  }

  /**
   * Key names, built once per organization and per API key and reused: admission and settlement need them
   * on every request, and 15 concatenated strings and two objects twice per request were pure garbage. The
   * maps hold one entry per organization and per key that made a request (bounded by the keys that exist).
   */
  readonly #orgKeyNames = new Map<string, OrgKeys>();
  readonly #keyKeyNames = new Map<string, Map<string, KeyKeys>>();

  #orgKeys(org: string): OrgKeys {
    let names = this.#orgKeyNames.get(org);
    if (!names) {
      names = orgKeys(this.prefix, org);
      this.#orgKeyNames.set(org, names);
    }
    return names;
  }

  #keyKeys(org: string, keyId: string): KeyKeys {
    let ofOrg = this.#keyKeyNames.get(org);
    if (!ofOrg) {
      ofOrg = new Map();
      this.#keyKeyNames.set(org, ofOrg);
    }
    let names = ofOrg.get(keyId);
    if (!names) {
      names = keyKeys(this.prefix, org, keyId);
      ofOrg.set(keyId, names);
    }
    return names;
  }

  #requireOrg(org: string) {
    return declaredOrganization(this.config, org);
  }
}

/** ioredis refuses a command outright while disconnected (no offline queue): it never reached Redis. */
function neverSent(error: unknown): boolean {
  return error instanceof Error && error.message.includes('enableOfflineQueue');
}

/**
 * The Redis store's admin operations as `gate.admin` and `tollgate admin` call them: a Redis that is down or does not
 * answer in time is the operator's to know about in one line (policy_unavailable), not a client library's error. A
 * command that timed out may still have run. The checks of the input (ServiceError) pass as they are.
 */
export function redisAdmin(store: RedisPolicyStore): AdminOperations {
  return {
    topUp: (org, usd) => reached(store.topUp(org, usd)),
    setPaymentMethod: (org, value) => reached(store.setPaymentMethod(org, value)),
    createKey: (org, scopes) => reached(store.createKey(org, scopes)),
    revokeKey: (keyOrId) => reached(store.revokeKey(keyOrId)),
    usage: (org) => reached(store.usage(org)),
  };
}

function reached<T>(work: Promise<T>): Promise<T> {
  return work.catch((error: unknown) => {
    if (error instanceof ServiceError) throw error;
    throw new ServiceError('policy_unavailable', 'The Redis store is unreachable or did not answer in time; check whether the operation took effect before repeating it', { cause: error });
  });
}
