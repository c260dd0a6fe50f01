import { hash, randomBytes, randomUUID } from 'node:crypto';
import type { KeyConfig } from '../config/index.js';
import { ServiceError } from '../errors/index.js';

/** `sql:read`: the SQL endpoint, statements that cannot write only. */
export type Scope = 'models' | 'sql' | 'sql:read';

/** Who a request is, once its key checked out. */
export interface Principal {
  keyId: string;
  org: string;
  scopes: readonly Scope[];
}

/** A stored key: only its SHA-256 is kept, never the key itself. */
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
  #remoteLookup: ((sha256: string) => Promise<KeyRecord | undefined>) | undefined;

  static fromConfig(keys: readonly KeyConfig[]): KeyRing {
    const ring = new KeyRing();
    keys.forEach((entry, index) => {
      const sha256 = entry.sha256 ?? hashKey(entry.key ?? '');
      ring.add({ keyId: entry.id ?? `config-${index}-${sha256.slice(0, 8)}`, org: entry.org, scopes: entry.scopes, sha256, revoked: false });
    });
    return ring;
  }

  add(record: KeyRecord): void {
    this.#byHash.set(record.sha256, record);
  }

  find(sha256: string): KeyRecord | undefined {
    return this.#byHash.get(sha256);
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
    const record = this.#byHash.get(keyOrId) ?? this.#byHash.get(hashKey(keyOrId)) ?? [...this.#byHash.values()].find((r) => r.keyId === keyOrId);
    if (record) record.revoked = true;
    return record;
  }

  records(): KeyRecord[] {
    return [...this.#byHash.values()];
  }

  static newKeyId(): string {
    return `key_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  }
}
