import { organizationNameProblem, type OrganizationConfig, type ResolvedConfig } from '../config/index.js';
import { ServiceError } from '../errors/index.js';
import type { Micros } from './money.js';

/**
 * What every admin operation checks before it changes anything, for both stores alike (issue 15 item 9):
 * a bad argument is refused with a clear message and nothing is written.
 */

/** Balances stay exact: a balance, like any amount, is a safe integer of micro-dollars. */
export const MAX_BALANCE_MICROS: Micros = Number.MAX_SAFE_INTEGER;

/** The largest whole number of USD a balance can hold exactly. */
const MAX_USD = Math.floor(MAX_BALANCE_MICROS / 1_000_000);

const SCOPES: readonly string[] = ['models', 'sql', 'sql:read'];

/**
 * A top-up in USD as a positive safe integer of micro-dollars (rounded to the micro-dollar).
 *
 * @example
 * topUpMicros(2.5)   // 2_500_000
 * topUpMicros(1e308) // throws invalid_request
 */
export function topUpMicros(usd: unknown): Micros {
  const micros = typeof usd === 'number' ? Math.round(usd * 1_000_000) : Number.NaN;
  if (!Number.isSafeInteger(micros) || micros < 1) {
    throw new ServiceError('invalid_request', `A top-up must be a positive amount of USD, at least 0.000001 and at most ${MAX_USD} (got ${String(usd).slice(0, 40)})`);
  }
  return micros;
}

/** The refusal of a top-up that would carry a balance past what stays exact. */
export function balanceTooLarge(org: string): ServiceError {
  return new ServiceError('invalid_request', `This top-up would take the wallet of "${org}" above USD ${MAX_USD}; nothing was changed`);
}

/** A declared organization, by the one naming rule and by own property only (never `toString`). */
export function declaredOrganization(config: ResolvedConfig, org: unknown): OrganizationConfig {
  const problem = organizationNameProblem(org);
  if (problem) throw new ServiceError('invalid_request', `Invalid organization: ${problem}`);
  const settings = Object.hasOwn(config.organizations, org as string) ? config.organizations[org as string] : undefined;
  if (!settings) throw new ServiceError('invalid_request', `Unknown organization "${org as string}"`);
  return settings;
}

/** The scopes of a key to create: a non-empty set of `models` and `sql`. */
export function keyScopes(scopes: unknown): ('models' | 'sql' | 'sql:read')[] {
  if (scopes === undefined) return ['models', 'sql'];
  if (!Array.isArray(scopes) || scopes.length === 0 || scopes.some((scope) => !SCOPES.includes(scope as string))) {
    throw new ServiceError('invalid_request', `Key scopes are a non-empty list of "models", "sql" and "sql:read" (got ${JSON.stringify(scopes)?.slice(0, 80)})`);
  }
  return [...new Set(scopes as ('models' | 'sql' | 'sql:read')[])];
}

/** An admin's payment-method change: on (true) or off (false), nothing else. */
export function checkPaymentMethod(value: unknown): asserts value is boolean {
  if (typeof value !== 'boolean') throw new ServiceError('invalid_request', 'A payment method is on (true) or off (false)');
}

/** What `revokeKey` names: the key, its SHA-256 or its id. */
export function checkKeyToRevoke(keyOrId: unknown): asserts keyOrId is string {
  if (typeof keyOrId !== 'string' || keyOrId === '') throw new ServiceError('invalid_request', 'Name the key to revoke: the key, its SHA-256 or its id');
}
