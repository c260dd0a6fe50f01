import { hash, randomUUID } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { ANSWER_TTL_MS, RUNNING_TTL_MS, type IdempotencyClaim, type IdempotencyStore, type StoredAnswer } from '../idempotency/index.js';
import { idempotencyIndexKeys, idempotencyKey } from './redis-keys.js';
import { UnsentFinishes, type UnsentFinish } from './unsent-finishes.js';

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
 * KEYS: record, the organization's index (zset: record key → the order it was kept in), its sizes (hash: record
 * key → bytes; `bytes` → their sum, `seq` → the last order given). ARGV: token, state ('' frees the key), status,
 * headers (JSON), body (bytes), ttl ms, maxEntries, maxBytes. Only the claim's holder may finish it; the
 * fingerprint the claim wrote stays.
 *
 * A kept record is indexed, and past either bound the organization's oldest kept records are deleted (the memory
 * store's bounds, per organization here: a Cluster script reaches one organization's slot only). The index never
 * holds a running claim, so none is ever deleted, however full: a record it names whose TTL ran out is gone or
 * was claimed anew (then it has no `state` and is left alone). Index and sizes expire with the newest record.
 * The records it deletes are named by the index, not by KEYS: each carries the organization's hash tag, so on a
 * Cluster they live in the slot of the node running the script (redis-cluster.slow.ts).
 */
const FINISH = `
if redis.call('TYPE', KEYS[1]).ok ~= 'hash' or redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('DEL', KEYS[1]) return 1 end
redis.call('HSET', KEYS[1], 'state', ARGV[2], 'status', ARGV[3], 'headers', ARGV[4], 'body', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
local size = #ARGV[4] + #ARGV[5]
local total = tonumber(redis.call('HGET', KEYS[3], 'bytes') or '0') + size - tonumber(redis.call('HGET', KEYS[3], KEYS[1]) or '0')
redis.call('ZADD', KEYS[2], redis.call('HINCRBY', KEYS[3], 'seq', 1), KEYS[1])
redis.call('HSET', KEYS[3], KEYS[1], size)
local maxEntries = tonumber(ARGV[7])
local maxBytes = tonumber(ARGV[8])
while total > maxBytes or redis.call('ZCARD', KEYS[2]) > maxEntries do
  local oldest = redis.call('ZPOPMIN', KEYS[2])[1]
  if oldest == nil then break end
  total = total - tonumber(redis.call('HGET', KEYS[3], oldest) or '0')
  redis.call('HDEL', KEYS[3], oldest)
  if redis.call('TYPE', oldest).ok == 'hash' and redis.call('HEXISTS', oldest, 'state') == 1 then redis.call('DEL', oldest) end
end
redis.call('HSET', KEYS[3], 'bytes', total)
redis.call('PEXPIRE', KEYS[2], ARGV[6])
redis.call('PEXPIRE', KEYS[3], ARGV[6])
return 1
`;

/** A finished record's state: its answer kept, or too large to keep. */
const KEPT = 'kept';
const NOT_KEPT = 'not-kept';

type BeginReply = null | [Buffer | null, Buffer | null, Buffer | null, Buffer | null, Buffer | null] | [Buffer, Buffer];

type IdempotencyRedis = (Redis | Cluster) & {
  tollgateIdemBeginBuffer(key: string, fingerprint: string, token: string, ttlMs: number): Promise<BeginReply>;
  /** FINISH's KEYS (record, index, sizes), then its ARGV (token, state, status, headers, body, ttl ms, maxEntries, maxBytes). */
  tollgateIdemFinish(...args: UnsentFinish['args']): Promise<number>;
};

/**
 * Idempotency-Key records shared by every instance: one Redis hash per organization and key (named by the
 * key's SHA-256, in the organization's hash slot), expiring 24 hours after the answer, or `runningTtlMs`
 * after the claim if its instance dies first (a minute more than the longest request). One script per step and one round trip each (claim; keep or free),
 * so two instances cannot both claim. The answer's body is kept as its bytes (no base64, no JSON around it).
 * An organization's kept answers are bounded by `maxEntries` and `maxBytes` (FINISH), oldest kept first out, so
 * fresh keys with large answers cannot grow Redis for a day.
 */
export class RedisIdempotencyStore implements IdempotencyStore {
  readonly #redis: IdempotencyRedis;
  /** Finishes Redis did not take (gone or hung mid-request), sent again until it does. */
  readonly #unsent: UnsentFinishes;

  /** Each organization's index keys, made once (bounded by the organizations). */
  readonly #indexKeys = new Map<string, { index: string; sizes: string }>();

  constructor(
    redis: Redis | Cluster,
    private readonly prefix: string,
    /**
     * Per organization, the kept answers and their bytes (body plus headers' JSON): the config's `idempotency`;
     * `runningTtlMs`: how long a running claim holds its key if its instance dies first (config longestRequestMs).
     */
    private readonly bounds: { maxEntries: number; maxBytes: number; runningTtlMs?: number },
  ) {
    this.#redis = redis as IdempotencyRedis;
    this.#redis.defineCommand('tollgateIdemBegin', { numberOfKeys: 1, lua: BEGIN });
    this.#redis.defineCommand('tollgateIdemFinish', { numberOfKeys: 3, lua: FINISH });
    this.#unsent = new UnsentFinishes((finish) => this.#redis.tollgateIdemFinish(...finish.args), bounds);
  }

  async begin(org: string, key: string, fingerprint: string): Promise<IdempotencyClaim> {
    const token = randomUUID();
    const held = await this.#redis.tollgateIdemBeginBuffer(this.#key(org, key), fingerprint, token, this.bounds.runningTtlMs ?? RUNNING_TTL_MS);
    if (held === null) return { state: 'claimed', token };
    if (held.length === 2) return legacyClaim(held[1].toString(), fingerprint);
    const [fp, state, status, headers, body] = held;
    if (fp?.toString() !== fingerprint) return { state: 'mismatch' };
    if (state === null) return { state: 'running' };
    if (state.toString() !== KEPT) return { state: 'done', answer: undefined };
    return { state: 'done', answer: { status: Number(status!.toString()), headers: JSON.parse(headers!.toString()) as StoredAnswer['headers'], body: body! } };
  }

  complete(org: string, key: string, token: string, answer: StoredAnswer | undefined): Promise<void> {
    const { index, sizes } = this.#indexOf(org);
    const { maxEntries, maxBytes } = this.bounds;
    if (!answer) return this.#finish([this.#key(org, key), index, sizes, token, NOT_KEPT, 0, '', '', ANSWER_TTL_MS, maxEntries, maxBytes], 0);
    const headers = JSON.stringify(answer.headers);
    return this.#finish([this.#key(org, key), index, sizes, token, KEPT, answer.status, headers, answer.body, ANSWER_TTL_MS, maxEntries, maxBytes], headers.length + answer.body.length);
  }

  abandon(org: string, key: string, token: string): Promise<void> {
    const { index, sizes } = this.#indexOf(org);
    return this.#finish([this.#key(org, key), index, sizes, token, '', 0, '', '', 0, 0, 0], 0);
  }

  /** One last attempt at the finishes still unsent (called by the policy store's close). */
  close(): Promise<void> {
    return this.#unsent.close();
  }

  /** Resolves once Redis took it, or it was kept to be sent again: never rejects. */
  async #finish(args: UnsentFinish['args'], bytes: number): Promise<void> {
    await this.#redis.tollgateIdemFinish(...args).catch(() => this.#unsent.keep({ args, bytes }));
  }

  #indexOf(org: string): { index: string; sizes: string } {
    let keys = this.#indexKeys.get(org);
    if (!keys) this.#indexKeys.set(org, (keys = idempotencyIndexKeys(this.prefix, org)));
    return keys;
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
