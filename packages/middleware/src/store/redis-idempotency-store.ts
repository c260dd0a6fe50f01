import { createHash, randomUUID } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { ANSWER_TTL_MS, RUNNING_TTL_MS, type IdempotencyClaim, type IdempotencyStore, type StoredAnswer } from '../idempotency/index.js';
import { idempotencyKey } from './redis-keys.js';

/** KEYS: record. ARGV: running record (JSON), ttl ms. Claims the key, or returns what holds it. */
const BEGIN = `
local held = redis.call('GET', KEYS[1])
if held then return held end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false
`;

/** KEYS: record. ARGV: token, new record (JSON, or '' to delete), ttl ms. Only the claim's holder may change it. */
const FINISH = `
local held = redis.call('GET', KEYS[1])
if not held or cjson.decode(held).token ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) end
return 1
`;

interface StoredRecord {
  fingerprint: string;
  token: string;
  done: boolean;
  answer?: StoredAnswer;
}

type IdempotencyRedis = (Redis | Cluster) & {
  tollgateIdemBegin(key: string, record: string, ttlMs: number): Promise<string | null>;
  tollgateIdemFinish(key: string, token: string, record: string, ttlMs: number): Promise<number>;
};

/**
 * Idempotency-Key records shared by every instance: one Redis string per organization and key (named by
 * the key's SHA-256, in the organization's hash slot), expiring 24 hours after the answer, or 15 minutes
 * after the claim if its instance dies first. Each step is one script, so two instances cannot both claim.
 */
export class RedisIdempotencyStore implements IdempotencyStore {
  readonly #redis: IdempotencyRedis;

  constructor(
    redis: Redis | Cluster,
    private readonly prefix: string,
  ) {
    this.#redis = redis as IdempotencyRedis;
    this.#redis.defineCommand('tollgateIdemBegin', { numberOfKeys: 1, lua: BEGIN });
    this.#redis.defineCommand('tollgateIdemFinish', { numberOfKeys: 1, lua: FINISH });
  }

  async begin(org: string, key: string, fingerprint: string): Promise<IdempotencyClaim> {
    const token = randomUUID();
    const running: StoredRecord = { fingerprint, token, done: false };
    const held = await this.#redis.tollgateIdemBegin(this.#key(org, key), JSON.stringify(running), RUNNING_TTL_MS);
    if (held === null) return { state: 'claimed', token };
    const record = JSON.parse(held) as StoredRecord;
    if (record.fingerprint !== fingerprint) return { state: 'mismatch' };
    return record.done ? { state: 'done', answer: record.answer } : { state: 'running' };
  }

  async complete(org: string, key: string, token: string, answer: StoredAnswer | undefined): Promise<void> {
    const record = await this.#fingerprintOf(org, key, token);
    if (record === undefined) return;
    const done: StoredRecord = answer ? { fingerprint: record, token, done: true, answer } : { fingerprint: record, token, done: true };
    await this.#redis.tollgateIdemFinish(this.#key(org, key), token, JSON.stringify(done), ANSWER_TTL_MS);
  }

  async abandon(org: string, key: string, token: string): Promise<void> {
    await this.#redis.tollgateIdemFinish(this.#key(org, key), token, '', 0);
  }

  async #fingerprintOf(org: string, key: string, token: string): Promise<string | undefined> {
    const held = await this.#redis.get(this.#key(org, key));
    if (!held) return undefined;
    const record = JSON.parse(held) as StoredRecord;
    return record.token === token ? record.fingerprint : undefined;
  }

  #key(org: string, key: string): string {
    return idempotencyKey(this.prefix, org, createHash('sha256').update(key).digest('hex'));
  }
}
