import { errorCatalog, ServiceError, type ErrorName } from '../errors/index.js';
import type { AdminOperations, UsageReport } from '../policy/policy-types.js';
import type { StoreHolder } from './store-holder.js';

/** Longer than any admin operation takes (a journal fsync), short enough that a hung server does not hang the command. */
const ANSWER_TIMEOUT_MS = 30_000;

/**
 * `gate.admin` of the process that holds a memory store, reached over its admin channel: what
 * `tollgate admin` uses while a server runs on that store, so the change happens in the server's
 * memory (and its journal) at once. Errors come back as the ServiceErrors the server raised.
 *
 * @example
 * await new RemoteAdmin(holder).revokeKey('key_0123456789abcdef');
 */
export class RemoteAdmin implements AdminOperations {
  constructor(private readonly holder: StoreHolder) {}

  topUp(org: string, usd: number): Promise<{ wallet: number }> {
    return this.#call('topUp', [org, usd]);
  }

  async setPaymentMethod(org: string, hasPaymentMethod: boolean): Promise<void> {
    await this.#call('setPaymentMethod', [org, hasPaymentMethod]);
  }

  createKey(org: string, scopes?: ('models' | 'sql' | 'sql:read')[]): Promise<{ key: string; keyId: string }> {
    return this.#call('createKey', scopes === undefined ? [org] : [org, scopes]);
  }

  revokeKey(keyOrId: string): Promise<boolean> {
    return this.#call('revokeKey', [keyOrId]);
  }

  usage(org: string): Promise<UsageReport> {
    return this.#call('usage', [org]);
  }

  async #call<T>(op: keyof AdminOperations, args: unknown[]): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`http://127.0.0.1:${this.holder.port}/admin`, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.holder.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ op, args }),
        signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
      });
    } catch (cause) {
      throw new ServiceError('policy_unavailable', `The Tollgate server holding the store (process ${this.holder.pid}) did not answer; check whether the operation took effect before repeating it`, { cause });
    }
    const body = (await response.json()) as { result?: T; error?: { kind?: string; message?: string } };
    if (response.ok) return body.result as T;
    const kind = body.error?.kind && body.error.kind in errorCatalog ? (body.error.kind as ErrorName) : 'internal';
    throw new ServiceError(kind, body.error?.message ?? `Admin channel answered ${response.status}`);
  }
}
