import { createHmac, hash, randomBytes, randomUUID } from 'node:crypto';
import type { KeyConfig } from '../config/index.js';
import { ServiceError } from '../errors/index.js';

/** `sql:read`: the SQL endpoint, statements that cannot write only. `admin`: the console, for the key's organization. */
export type Scope = 'models' | 'sql' | 'sql:read' | 'admin';

/** Who a request is, once its key checked out. */
export interface Principal {
  keyId: string;
  org: string;
  scopes: readonly Scope[];
  /** The key's own limits and spend budget, checked after its organization's (configured keys only). */
  limits?: KeyConfig['limits'];
  budget?: KeyConfig['budget'];
}

/**
 * A stored key: only its SHA-256 is kept, never the key itself. Unkeyed SHA-256 is enough because
 * every key is strong (configured keys ≥ 128 bits, enforced at config parse; created keys 192 bits):
 * no search recovers such a key from its hash, and an unkeyed hash keeps `sha256` config entries
 * computable with `sha256sum` and equal on every instance.
 */
export interface KeyRecord extends Principal {
  sha256: string;
  revoked: boolean;
}

/**
 * SHA-256 hex of a presented key, the only form in which keys are stored or compared. Every request
 * hashes its key: the one-shot `crypto.hash` is a quarter of the cost of a Hash object.
 */
export function hashKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** A fresh API key in the `tg-` format, with enough entropy to be unguessable. */
export function generateKey(): string {
  return `tg-${randomBytes(24).toString('base64url')}`;
}

/**
 * The keys Tollgate accepts, indexed by hash. Configured keys are loaded at start; keys created or
 * revoked at run time go through `add`/`revoke` (the policy store mirrors them across instances).
 *
 * @example
 * const ring = KeyRing.fromConfig(config.keys);
 * ring.find(hashKey(presented));
 */
export class KeyRing {
  readonly #byHash = new Map<string, KeyRecord>();
  /**
   * The same records by key id, kept as they are added: replaying a store's history looks keys up by id (a
   * settlement's budget, a revocation), and a scan of every record per line made a start-up with many created
   * or revoked keys quadratic in them (20,000 revoked keys: 5.8 s; 24,000 keys with 4,000 settlements between
   * creations: 17.6 s).
   */
  readonly #byId = new Map<string, KeyRecord>();
  #remoteLookup: ((sha256: string) => Promise<KeyRecord | undefined>) | undefined;

  /** Configured keys without an explicit id wait here for `assignConfiguredIds`. */
  readonly #unnamed: KeyRecord[] = [];
  /** The ids earlier versions derived from a configured key's bare hash: revocations made under them still hold. */
  readonly #legacyIds = new Map<string, KeyRecord>();

  /**
   * Configured keys. One without an `id` gets its id from `assignConfiguredIds` once the store knows the
   * installation's secret; until then it authenticates as policy_unavailable (fail closed).
   */
  static fromConfig(keys: readonly KeyConfig[]): KeyRing {
    const ring = new KeyRing();
    keys.forEach((entry, index) => {
      const sha256 = entry.sha256 ?? hashKey(entry.key ?? '');
      const record: KeyRecord = { keyId: entry.id ?? PENDING_ID, org: entry.org, scopes: entry.scopes, sha256, revoked: false };
      // Only keys that have them carry them, so records of other keys stay as they were (and as stored).
      if (entry.limits) record.limits = entry.limits;
      if (entry.budget) record.budget = entry.budget;
      ring.add(record);
      if (entry.id !== undefined) return;
      ring.#unnamed.push(record);
      ring.#legacyIds.set(`config-${index}-${sha256.slice(0, 8)}`, record);
    });
    return ring;
  }

  /**
   * Names the configured keys that have no `id`: `cfg_` + 64 bits of HMAC-SHA-256 of the key's hash under
   * the installation's secret. Stable across restarts (same secret, same key), the same on every
   * instance sharing a store, and, unlike a prefix of the bare hash, no help to anyone guessing the key
   * from a ledger line.
   */
  assignConfiguredIds(secret: string): void {
    for (const record of this.#unnamed) {
      this.#unindex(record);
      record.keyId = `cfg_${createHmac('sha256', secret).update(record.sha256).digest('hex').slice(0, 16)}`;
      this.#index(record);
    }
  }

  /** The configured keys as earlier versions named them, for stores that hold revocations under those names. */
  legacyIds(): ReadonlyMap<string, KeyRecord> {
    return this.#legacyIds;
  }

  add(record: KeyRecord): void {
    const replaced = this.#byHash.get(record.sha256);
    if (replaced) this.#unindex(replaced);
    this.#byHash.set(record.sha256, record);
    this.#index(record);
  }

  find(sha256: string): KeyRecord | undefined {
    return this.#byHash.get(sha256);
  }

  /** The key with this id (configured ones once their ids are assigned), without a scan of every key. */
  byId(keyId: string): KeyRecord | undefined {
    return keyId === PENDING_ID ? undefined : this.#byId.get(keyId);
  }

  /**
   * Finds a key locally, else asks the shared store (keys created on another instance). A store that
   * cannot answer refuses the request with 503 policy_unavailable (DESIGN step 7: fail closed), not 401:
   * the key may be fine, and a client must not drop a good key over a transient outage.
   */
  async resolve(sha256: string): Promise<KeyRecord | undefined> {
    const local = this.#byHash.get(sha256);
    if (local || !this.#remoteLookup) return local;
    const remote = await this.#remoteLookup(sha256).catch((cause: unknown) => {
      throw new ServiceError('policy_unavailable', 'Account access could not be verified; retry in a few seconds', { cause });
    });
    if (remote) this.add(remote);
    return remote;
  }

  /** Lets a shared policy store answer for keys this instance has not seen. */
  setRemoteLookup(lookup: (sha256: string) => Promise<KeyRecord | undefined>): void {
    this.#remoteLookup = lookup;
  }

  /** Revokes by key id, by hash or by the key itself; answers whether anything was revoked. */
  revoke(keyOrId: string): KeyRecord | undefined {
    if (keyOrId === PENDING_ID) return undefined;
    const record = this.#byHash.get(keyOrId) ?? this.#byHash.get(hashKey(keyOrId)) ?? this.#byId.get(keyOrId) ?? this.#legacyIds.get(keyOrId);
    if (record) record.revoked = true;
    return record;
  }

  records(): KeyRecord[] {
    return [...this.#byHash.values()];
  }

  #index(record: KeyRecord): void {
    if (record.keyId !== PENDING_ID) this.#byId.set(record.keyId, record);
  }

  #unindex(record: KeyRecord): void {
    if (this.#byId.get(record.keyId) === record) this.#byId.delete(record.keyId);
  }

  /** A created key's id: random, so it says nothing about the key. */
  static newKeyId(): string {
    return `key_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  }
}

/** The key id of a configured key before `assignConfiguredIds` ran. */
export const PENDING_ID = '';
