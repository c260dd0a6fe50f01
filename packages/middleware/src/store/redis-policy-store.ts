import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { Redis } from 'ioredis';
import { generateKey, hashKey, KeyRing, type KeyRecord } from '../auth/index.js';
import type { ResolvedConfig } from '../config/index.js';
import { ServiceError } from '../errors/index.js';
import { nextReset } from '../policy/allowance-period.js';
import { microsToUsd, pricePerToken, usdToMicros } from '../policy/money.js';
import type { Admission, AdminOperations, AdmissionRequest, Policy, Usage, UsageReport } from '../policy/policy-types.js';
import type { Clock } from '../runtime-clock.js';
import { consoleLogger, type Logger } from '../logger.js';
import { admitScript, settleScript } from './redis-scripts.js';
import { SettlementSpool, type SpooledSettlement } from './settlement-spool.js';

/** How long a concurrency slot lives if its instance dies before settling: longer than any request. */
const SLOT_LEASE_MS = 15 * 60_000;
const SETTLE_RETRY_MS = 1_000;

interface ScriptedRedis extends Redis {
  tollgateAdmit(...args: (string | number)[]): Promise<string[]>;
  tollgateSettle(...args: (string | number)[]): Promise<number>;
}

/**
 * The multi-instance policy store: rate-limit windows, concurrency slots, balances, allowances and key
 * revocations live in one Redis and change atomically in Lua (one round trip to admit, one to settle);
 * the ledger is a Redis stream. Commands fail fast while Redis is away (no offline queue), so admission
 * answers 503 policy_unavailable instead of running unmetered; settlements that could not reach Redis
 * are retried until it is back, from memory and, with `store.pendingFile`, from a local file that
 * outlives the process.
 */
export class RedisPolicyStore implements Policy, AdminOperations {
  #pendingSettlements: SpooledSettlement[] = [];
  #retryTimer: NodeJS.Timeout | undefined;
  #spool: SettlementSpool | undefined;

  /** A second connection in subscriber mode: revocations made on any instance reach this one's KeyRing at once. */
  #subscriber: Redis | undefined;

  private constructor(
    private readonly redis: ScriptedRedis,
    private readonly config: ResolvedConfig,
    private readonly keys: KeyRing,
    private readonly clock: Clock,
    private readonly prefix: string,
    private readonly logger: Pick<Logger, 'error'>,
  ) {}

  static async connect(options: { config: ResolvedConfig; keys: KeyRing; clock: Clock; baseDir: string; logger?: Pick<Logger, 'error'> }): Promise<RedisPolicyStore> {
    const { config } = options;
    if (config.store.kind !== 'redis') throw new Error('RedisPolicyStore needs store.kind "redis"');
    const redis = new Redis(config.store.url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: config.policyTimeoutMs,
      connectTimeout: config.policyTimeoutMs,
      retryStrategy: (times) => Math.min(times * 100, 1_000),
    }) as ScriptedRedis;
    redis.on('error', () => undefined); // surfaced per command as policy_unavailable
    redis.defineCommand('tollgateAdmit', { numberOfKeys: 6, lua: admitScript });
    redis.defineCommand('tollgateSettle', { numberOfKeys: 5, lua: settleScript });
    const store = new RedisPolicyStore(redis, config, options.keys, options.clock, config.store.prefix, options.logger ?? consoleLogger);
    if (config.store.pendingFile) {
      store.#spool = await SettlementSpool.open(resolve(options.baseDir, config.store.pendingFile));
      // Left by an earlier process that stopped during an outage: sent again once Redis answers.
      for (const settlement of store.#spool.waiting) store.#retryLater(settlement);
    }
    try {
      await redis.connect();
      await store.#initialise();
      await store.#syncRevocations();
    } catch (error) {
      // Start anyway: admission answers policy_unavailable until Redis is reachable.
      if (redis.status === 'ready') throw error;
    }
    options.keys.setRemoteLookup((sha256) => store.#lookupKey(sha256));
    // Wait (briefly) for the subscription, so revocations made right after start-up are not missed.
    await Promise.race([store.#subscribeToRevocations(config.store.url), new Promise((resolve) => setTimeout(resolve, config.policyTimeoutMs).unref())]);
    return store;
  }

  /**
   * Admission checks the shared revocation set itself; this keeps each KeyRing current too, so endpoints
   * without admission (the SQL endpoint) refuse a revoked key at once. After every (re)connection the
   * whole set is read again, so a revocation made while this instance was cut off is not missed.
   */
  #subscribeToRevocations(url: string): Promise<void> {
    const channel = `${this.prefix}revocations`;
    let subscribed: () => void = () => undefined;
    const first = new Promise<void>((resolve) => (subscribed = resolve));
    const subscriber = new Redis(url, { lazyConnect: true, autoResubscribe: false, maxRetriesPerRequest: null, retryStrategy: (times) => Math.min(times * 100, 1_000) });
    this.#subscriber = subscriber;
    subscriber.on('error', () => undefined);
    subscriber.on('message', (_channel: string, keyId: string) => this.keys.revoke(keyId));
    subscriber.on('ready', () => {
      subscriber
        .subscribe(channel)
        .then(() => this.#syncRevocations())
        .then(subscribed)
        .catch(() => undefined); // the next 'ready' tries again
    });
    subscriber.connect().catch(() => undefined);
    return first;
  }

  async #syncRevocations(): Promise<void> {
    const revoked = new Set(await this.redis.smembers(`${this.prefix}revoked`));
    for (const record of this.keys.records()) if (revoked.has(record.keyId)) record.revoked = true;
  }

  async admit(request: AdmissionRequest): Promise<Admission> {
    const org = this.config.organizations[request.principal.org];
    if (!org) throw new ServiceError('unauthorized', 'The key\'s organization no longer exists');
    const now = this.clock.now();
    const id = randomUUID();
    const k = this.#orgKeys(request.principal.org);
    const admitOnce = () =>
      this.redis.tollgateAdmit(
        k.bal, k.rpm, k.tpm, k.tpmtok, k.slots, `${this.prefix}revoked`,
        now, id, request.principal.keyId, org.limits.rpm ?? 0, org.limits.tpm ?? 0, org.limits.concurrency ?? 0,
        request.estimatedInputTokens, request.billing, org.included?.tokens ?? -1, org.included ? nextReset(org.included, now) : '', SLOT_LEASE_MS,
      );
    let answer: string[];
    try {
      answer = await withDeadline(
        (async () => {
          await this.#ensureInitialised();
          const first = await admitOnce();
          if (first[0] !== 'uninitialised') return first;
          // A Redis that lost its data (no persistence) starts again from the config's opening balances.
          await this.#initialise();
          return admitOnce();
        })(),
        this.config.policyTimeoutMs,
      );
    } catch (error) {
      // The script may still have run (a reply lost or late): release whatever it may hold, so a refused
      // request never keeps a concurrency slot until its lease expires. Harmless if it never ran.
      if (!neverSent(error)) void this.#settle(id, request, { inputTokens: 0, outputTokens: 0 });
      throw new ServiceError('policy_unavailable', 'Account access could not be verified; retry in a few seconds', { cause: error });
    }
    const [verdict, detail] = answer;
    switch (verdict) {
      case 'ok':
        break;
      case 'revoked':
        this.keys.revoke(request.principal.keyId);
        throw new ServiceError('unauthorized', 'Invalid or revoked API key');
      case 'rate':
        throw new ServiceError('rate_limited', 'Rate limit reached; retry after the Retry-After interval', { retryAfterSeconds: Math.max(1, Math.ceil(Number(detail) / 1000)) });
      case 'wallet':
        throw new ServiceError('wallet_empty', 'The organization\'s wallet is empty; add credit to continue', { recoveryUrl: this.config.recoveryUrl });
      case 'exhausted':
        throw new ServiceError('included_allowance_exhausted', 'Included tokens are used up until the reset time; add a payment method and credit to continue now', { resetAt: new Date(Number(detail) || now) });
      default:
        throw new ServiceError('policy_unavailable', `Unexpected policy answer ${verdict}`);
    }
    let settled: Promise<void> | undefined;
    return { settle: (usage: Usage) => (settled ??= this.#settle(id, request, usage)) };
  }

  async close(): Promise<void> {
    clearTimeout(this.#retryTimer);
    await this.#drainPending();
    // What Redis still could not take stays in the pending file for the next start.
    clearTimeout(this.#retryTimer);
    await this.#spool?.close();
    this.#subscriber?.disconnect();
    this.redis.disconnect();
  }

  async topUp(org: string, usd: number): Promise<{ wallet: number }> {
    this.#requireOrg(org);
    if (!Number.isFinite(usd) || usd <= 0) throw new ServiceError('invalid_request', 'A top-up must be a positive amount of USD');
    await this.#ensureInitialised();
    const micros = usdToMicros(usd);
    const [[, wallet]] = (await this.redis.multi().hincrby(this.#orgKeys(org).bal, 'wallet', micros).xadd(`${this.prefix}ledger`, '*', 't', 'topup', 'org', org, 'micros', micros, 'at', this.clock.now()).exec()) as [[null, number]];
    return { wallet: microsToUsd(wallet) };
  }

  async setPaymentMethod(org: string, value: boolean): Promise<void> {
    this.#requireOrg(org);
    await this.#ensureInitialised();
    await this.redis
      .multi()
      .hset(this.#orgKeys(org).bal, 'payment', value ? '1' : '0')
      .xadd(`${this.prefix}ledger`, '*', 't', 'payment', 'org', org, 'value', value ? '1' : '0', 'at', this.clock.now())
      .exec();
  }

  async createKey(org: string, scopes: ('models' | 'sql' | 'sql:read')[] = ['models', 'sql']): Promise<{ key: string; keyId: string }> {
    this.#requireOrg(org);
    const key = generateKey();
    const record: KeyRecord = { keyId: KeyRing.newKeyId(), org, scopes, sha256: hashKey(key), revoked: false };
    await this.redis.hset(`${this.prefix}keys`, record.sha256, JSON.stringify(record));
    this.keys.add(record);
    return { key, keyId: record.keyId };
  }

  /** Revokes a configured key or one created on any instance, by key, SHA-256 or key id. */
  async revokeKey(keyOrId: string): Promise<boolean> {
    const record = this.keys.records().find((r) => r.keyId === keyOrId || r.sha256 === keyOrId || r.sha256 === hashKey(keyOrId)) ?? (await this.#findStoredKey(keyOrId));
    if (!record) return false;
    await this.redis.multi().sadd(`${this.prefix}revoked`, record.keyId).publish(`${this.prefix}revocations`, record.keyId).exec();
    this.keys.add({ ...record, revoked: true });
    return true;
  }

  /** A key created on another instance that this one has not seen yet. */
  async #findStoredKey(keyOrId: string): Promise<KeyRecord | undefined> {
    const stored = await this.redis.hgetall(`${this.prefix}keys`);
    const direct = stored[keyOrId] ?? stored[hashKey(keyOrId)];
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
    const [bal, inFlight] = await Promise.all([this.redis.hgetall(k.bal), this.redis.zcount(k.slots, now, '+inf')]);
    const resetAt = bal.resetAt ? Number(bal.resetAt) : null;
    const refilled = resetAt !== null && now >= resetAt;
    return {
      wallet: microsToUsd(Number(bal.wallet ?? 0)),
      paymentMethod: bal.payment === '1',
      includedRemaining: config.included ? Math.max(0, config.included.tokens - (refilled ? 0 : Number(bal.incUsed ?? 0))) : 0,
      resetAt: resetAt === null ? null : new Date(refilled && config.included ? nextReset(config.included, now) : resetAt).toISOString(),
      requests: Number(bal.requests ?? 0),
      inputTokens: Number(bal.in ?? 0),
      outputTokens: Number(bal.out ?? 0),
      costUsd: microsToUsd(Number(bal.cost ?? 0)),
      inFlight,
    };
  }

  #settle(id: string, request: AdmissionRequest, usage: Usage): Promise<void> {
    const org = this.config.organizations[request.principal.org]!;
    const k = this.#orgKeys(request.principal.org);
    const now = this.clock.now();
    const settlement: SpooledSettlement = {
      id,
      args: [
        k.bal, k.tpmtok, k.slots, `${this.prefix}ledger`, `${this.prefix}settled:${id}`,
        id, Math.max(0, Math.round(usage.inputTokens)), Math.max(0, Math.round(usage.outputTokens)), request.billing, org.included?.tokens ?? -1,
        pricePerToken(request.price.input), pricePerToken(request.price.output), now, org.included ? nextReset(org.included, now) : '',
        request.principal.org, request.principal.keyId, request.alias,
      ],
    };
    return this.redis.tollgateSettle(...settlement.args).then(
      () => undefined,
      () => this.#defer(settlement),
    );
  }

  /**
   * A settlement Redis could not take is kept and retried, so no metered token is lost while it is away;
   * with a pending file it is durable there before the settlement is acknowledged.
   */
  async #defer(settlement: SpooledSettlement): Promise<void> {
    await this.#spool?.hold(settlement).catch((error: unknown) => this.logger.error(`pending settlements: could not write ${JSON.stringify(settlement)}; it waits in memory only`, error));
    this.#retryLater(settlement);
  }

  #retryLater(settlement: SpooledSettlement): void {
    this.#pendingSettlements.push(settlement);
    this.#retryTimer ??= setTimeout(() => {
      this.#retryTimer = undefined;
      void this.#drainPending();
    }, SETTLE_RETRY_MS);
    this.#retryTimer.unref();
  }

  async #drainPending(): Promise<void> {
    const pending = this.#pendingSettlements.splice(0);
    for (const settlement of pending) {
      try {
        await this.redis.tollgateSettle(...settlement.args);
      } catch {
        this.#retryLater(settlement);
        continue;
      }
      await this.#spool?.release(settlement.id).catch(() => undefined);
    }
  }

  #initialised = false;

  async #ensureInitialised(): Promise<void> {
    if (!this.#initialised) await this.#initialise();
  }

  /** Opening balances from the config, written once: HSETNX leaves what other instances already changed. */
  async #initialise(): Promise<void> {
    const now = this.clock.now();
    const multi = this.redis.multi();
    for (const [name, org] of Object.entries(this.config.organizations)) {
      const bal = this.#orgKeys(name).bal;
      multi.hsetnx(bal, 'wallet', usdToMicros(org.wallet));
      multi.hsetnx(bal, 'payment', org.paymentMethod ? '1' : '0');
      multi.hsetnx(bal, 'incUsed', 0);
      multi.hsetnx(bal, 'resetAt', org.included ? nextReset(org.included, now) : '');
    }
    await multi.exec();
    this.#initialised = true;
  }

  async #lookupKey(sha256: string): Promise<KeyRecord | undefined> {
    const json = await this.redis.hget(`${this.prefix}keys`, sha256);
    if (!json) return undefined;
    const record = JSON.parse(json) as KeyRecord;
    return { ...record, revoked: (await this.redis.sismember(`${this.prefix}revoked`, record.keyId)) === 1 };
  }

  #orgKeys(org: string) {
    const base = `${this.prefix}org:${org}:`;
    return { bal: `${base}bal`, rpm: `${base}rpm`, tpm: `${base}tpm`, tpmtok: `${base}tpmtok`, slots: `${base}slots` };
  }

  #requireOrg(org: string) {
    const config = this.config.organizations[org];
    if (!config) throw new ServiceError('invalid_request', `Unknown organization "${org}"`);
    return config;
  }
}

/** DESIGN step 7: the whole admission answers within the deadline, however many commands it needed. */
function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the policy store did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

/** ioredis refuses a command outright while disconnected (no offline queue): it never reached Redis. */
function neverSent(error: unknown): boolean {
  return error instanceof Error && error.message.includes('enableOfflineQueue');
}
