/** The console's JSON API, as the page calls it (operator-console.ts serves it). */

export interface Session {
  org: string;
  keyId: string;
  csrfToken: string;
  expiresAt: string;
}

export interface Bar {
  label: string;
  costUsd: number;
  inputTokens: number;
  outputTokens: number;
  requests: number;
}

export interface KeyView {
  keyId: string;
  scopes: string[];
  revoked: boolean;
  usage: { requests: number; costUsd: number } | null;
}

export interface Overview {
  org: string;
  usage: { wallet: number; paymentMethod: boolean; includedRemaining: number; resetAt: string | null; requests: number; inputTokens: number; outputTokens: number; cachedInputTokens: number; costUsd: number; inFlight: number };
  activity: { days: Bar[]; byAlias: Bar[]; byKey: Bar[] };
  keys: KeyView[];
  ledgerFiles: boolean;
}

export interface LedgerPage {
  page: number;
  rows: { at: string; keyId: string; alias: string; route: string | null; inputTokens: number; cachedInputTokens: number; outputTokens: number; includedTokens: number; costUsd: number; requestId: string | null }[];
  hasOlder: boolean;
}

/** An answer other than 2xx, with the server's message. */
export class ConsoleError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function meta(name: string): string {
  return document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? '';
}

export const base = meta('tollgate-console-base');

export class ConsoleApi {
  csrfToken = '';

  async login(adminKey: string): Promise<Session> {
    const session = await this.#call<Session>('POST', '/login', undefined, { authorization: `Bearer ${adminKey}`, 'x-csrf-token': meta('tollgate-login-token') });
    this.csrfToken = session.csrfToken;
    return session;
  }

  async session(): Promise<Session> {
    const session = await this.#call<Session>('GET', '/api/session');
    this.csrfToken = session.csrfToken;
    return session;
  }

  logout(): Promise<unknown> {
    return this.#call('POST', '/logout', {});
  }

  overview(org: string): Promise<Overview> {
    return this.#call('GET', `/api/orgs/${encodeURIComponent(org)}`);
  }

  ledger(org: string, page: number): Promise<LedgerPage> {
    return this.#call('GET', `/api/orgs/${encodeURIComponent(org)}/ledger?page=${page}`);
  }

  createKey(org: string, scopes: string[]): Promise<{ key: string; keyId: string }> {
    return this.#call('POST', `/api/orgs/${encodeURIComponent(org)}/keys`, { scopes });
  }

  revokeKey(org: string, keyId: string): Promise<{ revoked: boolean }> {
    return this.#call('POST', `/api/orgs/${encodeURIComponent(org)}/keys/revoke`, { keyId });
  }

  topUp(org: string, usd: number): Promise<{ wallet: number }> {
    return this.#call('POST', `/api/orgs/${encodeURIComponent(org)}/top-up`, { usd });
  }

  setPaymentMethod(org: string, enabled: boolean): Promise<unknown> {
    return this.#call('POST', `/api/orgs/${encodeURIComponent(org)}/payment-method`, { enabled });
  }

  async #call<T>(method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    const sent: Record<string, string> = { ...headers };
    if (method === 'POST') {
      sent['content-type'] = 'application/json';
      sent['x-csrf-token'] ??= this.csrfToken;
    }
    const response = await fetch(base + path, { method, headers: sent, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin' });
    const answer = (await response.json().catch(() => ({}))) as { error?: { message?: string }; detail?: string };
    if (!response.ok) throw new ConsoleError(response.status, answer.error?.message ?? answer.detail ?? `HTTP ${response.status}`);
    return answer as T;
  }
}
