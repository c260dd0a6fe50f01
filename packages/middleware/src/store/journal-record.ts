/** One line of the policy journal: every change of money, keys or payment methods, in order. */
export type JournalRecord =
  /** The opening balance of an organization, written once when the store first sees it (config wallet and payment method). */
  | { t: 'open'; at: number; org: string; micros: number; payment: boolean }
  | LedgerLine
  | { t: 'topup'; at: number; org: string; micros: number }
  | { t: 'payment'; at: number; org: string; value: boolean }
  | { t: 'key'; at: number; keyId: string; org: string; scopes: ('models' | 'sql' | 'sql:read')[]; sha256: string }
  | { t: 'revoke'; at: number; keyId: string };

/**
 * One settlement: what the ledger files hold (and, before the ledger had files of its own, one kind of
 * journal line). `in`/`out` are tokens, `included` the tokens drawn from the allowance, `cost` micro-dollars.
 * `cached`/`written` are the parts of `in` read from / written to a prompt cache (absent in lines written
 * before they were billed apart, meaning 0).
 */
export interface LedgerLine { t: 'settle'; id: string; at: number; org: string; keyId: string; alias: string; in: number; out: number; included: number; cost: number; requestId?: string; cached?: number; written?: number; route?: string }
