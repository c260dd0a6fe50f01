/** The Redis keys of one organization; see redis-scripts.ts for what each holds. */
export interface OrgKeys {
  bal: string;
  win: string;
  slots: string;
  revoked: string;
  ledger: string;
  /** Top-ups and payment-method changes, the last 10,000 or so (the balance itself is in bal). */
  changes: string;
  /** The exporter's lease on this organization's ledger stream (redis-ledger-export.ts). */
  exporter: string;
  /** Leases that expired unsettled, kept so their settlement still charges once. */
  lapsed: string;
  /**
   * Reservations of requests in flight (hash: lease id → micro-dollars, their sum bal's `reserved`), and the
   * allowance tokens included ones claimed (`<lease id>:inc` → tokens, their sum bal's `incClaimed`).
   */
  reservations: string;
}

/** One API key's own state (per-key limits and budgets), in its organization's slot. */
export interface KeyKeys {
  /** Hash: spent, resetAt (budget period), reserved, requests, in, out, cost. */
  state: string;
  /** The key's rate-limit windows, the organization's layout. */
  win: string;
  /** Zset of the key's leases in flight, each expiring as the organization's do. */
  slots: string;
  /** Hash: lease id → micro-dollars the key's budget reserved for it. */
  reservations: string;
}

export function keyKeys(prefix: string, org: string, keyId: string): KeyKeys {
  const base = `${prefix}{${org}}:key:${keyId}:`;
  return { state: `${base}state`, win: `${base}win`, slots: `${base}slots`, reservations: `${base}reservations` };
}

/** An Idempotency-Key's record (redis-idempotency-store.ts), in the organization's slot; named by the key's hash. */
export function idempotencyKey(prefix: string, org: string, keyHash: string): string {
  return `${prefix}{${org}}:idem:${keyHash}`;
}

/** The index of an organization's kept idempotency answers and their sizes, which bound them (redis-idempotency-store.ts). */
export function idempotencyIndexKeys(prefix: string, org: string): { index: string; sizes: string } {
  const base = `${prefix}{${org}}:`;
  return { index: `${base}idem-index`, sizes: `${base}idem-sizes` };
}

/**
 * Every key of an organization carries the `{org}` hash tag, so all of them hash to one Cluster slot and
 * one script may touch them together (Redis Cluster refuses a script whose keys span slots). The tag is
 * the text between the key's first `{` and the next `}`, which here always lies in the part every key of
 * the organization shares, whatever the prefix or the organization's name contain.
 *
 * @example
 * orgKeys('tollgate:', 'acme').bal // 'tollgate:{acme}:bal'
 */
export function orgKeys(prefix: string, org: string): OrgKeys {
  const base = `${prefix}{${org}}:`;
  return {
    bal: `${base}bal`,
    win: `${base}win`,
    slots: `${base}slots`,
    revoked: `${base}revoked`,
    ledger: `${base}ledger`,
    changes: `${base}changes`,
    exporter: `${base}ledger-exporter`,
    lapsed: `${base}lapsed`,
    reservations: `${base}reservations`,
  };
}
