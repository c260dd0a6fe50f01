import { hash, randomUUID } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { ANSWER_TTL_MS, RUNNING_TTL_MS, type IdempotencyClaim, type IdempotencyStore, type StoredAnswer } from '../idempotency/index.js';
import { idempotencyKey } from './redis-keys.js';

/**
 * KEYS: record. ARGV: fingerprint, token, ttl ms. Claims the key (a hash: fp, token), or returns what holds it:
 * {fp, state, status, headers, body}. A record an earlier version wrote as a JSON string is returned as
 * {'legacy', json}, so instances of both versions never both run one key.
 */
const BEGIN = `
local kind = redis.call('TYPE', KEYS[1]).ok
if kind == 'string' then return {'legacy', redis.call('GET', KEYS[1])} end
if kind == 'hash' then return redis.call('HMGET', KEYS[1], 'fp', 'state', 'status', 'headers', 'body') end
redis.call('HSET', KEYS[1], 'fp', ARGV[1], 'token', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return false
`;

/**
 * KEYS: record. ARGV: token, state ('' frees the key), status, headers (JSON), body (bytes), ttl ms. Only the
 * claim's holder may finish it; the fingerprint the claim wrote stays.
 */
const FINISH = `
if redis.call('TYPE', KEYS[1]).ok ~= 'hash' or redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('DEL', KEYS[1]) return 1 end
redis.call('HSET', KEYS[1], 'state', ARGV[2], 'status', ARGV[3], 'headers', ARGV[4], 'body', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return 1
`;

/** A finished record's state: its answer kept, or too large to keep. */
const KEPT = 'kept';
const NOT_KEPT = 'not-kept';

type BeginReply = null | [Buffer | null, Buffer | null, Buffer | null, Buffer | null, Buffer | null] | [Buffer, Buffer];

type IdempotencyRedis = (Redis | Cluster) & {
  tollgateIdemBeginBuffer(key: string, fingerprint: string, token: string, ttlMs: number): Promise<BeginReply>;
  tollgateIdemFinish(key: string, token: string, state: string, status: number, headers: string, body: Buffer | string, ttlMs: number): Promise<number>;
};

/**
 * Idempotency-Key records shared by every instance: one Redis hash per organization and key (named by the
 * key's SHA-256, in the organization's hash slot), expiring 24 hours after the answer, or `runningTtlMs`
 * after the claim if its instance dies first (a minute more than the longest request). One script per step and one round trip each (claim; keep or free),
 * so two instances cannot both claim. The answer's body is kept as its bytes (no base64, no JSON around it).
 */
export class RedisIdempotencyStore implements IdempotencyStore {
  readonly #redis: IdempotencyRedis;

  constructor(
    redis: Redis | Cluster,
    private readonly prefix: string,
    /** How long a running claim holds its key if its instance dies first (config longestRequestMs). */
    private readonly runningTtlMs = RUNNING_TTL_MS,
  ) {
    this.#redis = redis as IdempotencyRedis;
    this.#redis.defineCommand('tollgateIdemBegin', { numberOfKeys: 1, lua: BEGIN });
    this.#redis.defineCommand('tollgateIdemFinish', { numberOfKeys: 1, lua: FINISH });
  }

  async begin(org: string, key: string, fingerprint: string): Promise<IdempotencyClaim> {
    const token = randomUUID();
    const held = await this.#redis.tollgateIdemBeginBuffer(this.#key(org, key), fingerprint, token, this.runningTtlMs);
    if (held === null) return { state: 'claimed', token };
    if (held.length === 2) return legacyClaim(held[1].toString(), fingerprint);
    const [fp, state, status, headers, body] = held;
    if (fp?.toString() !== fingerprint) return { state: 'mismatch' };
    if (state === null) return { state: 'running' };
    if (state.toString() !== KEPT) return { state: 'done', answer: undefined };
    return { state: 'done', answer: { status: Number(status!.toString()), headers: JSON.parse(headers!.toString()) as StoredAnswer['headers'], body: body! } };
  }

  async complete(org: string, key: string, token: string, answer: StoredAnswer | undefined): Promise<void> {
    if (answer) await this.#redis.tollgateIdemFinish(this.#key(org, key), token, KEPT, answer.status, JSON.stringify(answer.headers), answer.body, ANSWER_TTL_MS);
    else await this.#redis.tollgateIdemFinish(this.#key(org, key), token, NOT_KEPT, 0, '', '', ANSWER_TTL_MS);
  }

  async abandon(org: string, key: string, token: string): Promise<void> {
    await this.#redis.tollgateIdemFinish(this.#key(org, key), token, '', 0, '', '', 0);
  }

  #key(org: string, key: string): string {
    return idempotencyKey(this.prefix, org, hash('sha256', key, 'hex'));
  }
}

/** A record written by an earlier version: `{fingerprint, token, done, answer?: {status, headers: pairs, body: base64}}`. */
interface LegacyRecord {
  fingerprint: string;
  done: boolean;
  answer?: { status: number; headers: [string, string][]; body: string };
}

function legacyClaim(json: string, fingerprint: string): IdempotencyClaim {
  const record = JSON.parse(json) as LegacyRecord;
  if (record.fingerprint !== fingerprint) return { state: 'mismatch' };
  if (!record.done) return { state: 'running' };
  if (!record.answer) return { state: 'done', answer: undefined };
  const headers: StoredAnswer['headers'] = [];
  for (const [name, value] of record.answer.headers) {
    const same = headers.find((header) => header[0] === name);
    if (!same) headers.push([name, value]);
    else same[1] = [...(Array.isArray(same[1]) ? same[1] : [same[1]]), value];
  }
  return { state: 'done', answer: { status: record.answer.status, headers, body: Buffer.from(record.answer.body, 'base64') } };
}
