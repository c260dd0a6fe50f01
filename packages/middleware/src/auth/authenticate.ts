import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { ServiceError } from '../errors/index.js';
import { hashKey, PENDING_ID, type KeyRecord, type KeyRing, type Principal, type Scope } from './key-ring.js';

/**
 * The key a request presents: `Authorization: Bearer <key>` (OpenAI SDK) or `x-api-key` (Anthropic SDK).
 * Contract §5 leaves the scheme open; Tollgate accepts both so either official SDK works unchanged.
 */
export function presentedKey(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  // An Authorization of another scheme (a proxy's Basic credentials) is not Tollgate's: the x-api-key beside it is.
  const bearer = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (bearer) return bearer[1];
  const apiKey = req.headers['x-api-key'];
  return typeof apiKey === 'string' && apiKey.trim() !== '' ? apiKey.trim() : undefined;
}

/**
 * Step 2 of the pipeline: a missing, malformed, unknown or revoked key — or one without the scope the
 * endpoint needs (any one of `scope`, when several would do) — answers 401 with no code (contract §5 rule 2).
 *
 * @example
 * const principal = await authenticate(req, runtime.keys, 'sql');
 */
export function authenticate(req: IncomingMessage, keys: KeyRing, scope: Scope | readonly Scope[]): Principal | Promise<Principal> {
  const key = presentedKey(req);
  if (!key) throw new ServiceError('unauthorized', 'Missing API key: send "Authorization: Bearer <key>" or "x-api-key: <key>"');
  const sha256 = hashOnConnection(req, key);
  // A key the ring holds answers synchronously: no promise per request on the hot path (issue 20); only a
  // key the ring must still resolve (the store's) waits. Every caller awaits, so a throw here is its rejection.
  const known = keys.find(sha256);
  if (known) return principalOf(known, scope);
  return keys.resolve(sha256).then((record) => principalOf(record, scope));
}

function principalOf(record: KeyRecord | undefined, scope: Scope | readonly Scope[]): Principal {
  if (!record || record.revoked) throw invalidKey();
  if (typeof scope === 'string' ? !record.scopes.includes(scope) : !scope.some((one) => record.scopes.includes(one))) {
    throw new ServiceError('forbidden_scope', `This API key lacks the "${typeof scope === 'string' ? scope : scope.join('" or "')}" scope`);
  }
  // A configured key is named once the store has the installation's secret (a Redis that was away at start).
  if (record.keyId === PENDING_ID) throw new ServiceError('policy_unavailable', 'Account access could not be verified; retry in a few seconds');
  // Always the same five properties (undefined when the key has none): one object shape per request.
  return { keyId: record.keyId, org: record.org, scopes: record.scopes, limits: record.limits, budget: record.budget };
}

/**
 * The key of a request authenticated from its headers, looked at again once its body arrived (up to
 * `bodyTimeoutMs` later): a key revoked meanwhile is refused before anything runs or is charged.
 */
export function refuseIfRevokedSince(req: IncomingMessage, keys: KeyRing): void {
  const key = presentedKey(req);
  const record = key === undefined ? undefined : keys.find(hashOnConnection(req, key));
  if (!record || record.revoked) throw invalidKey();
}

const invalidKey = () => new ServiceError('unauthorized', 'Invalid or revoked API key');

const lastKeyOf = new WeakMap<Socket, { key: string; sha256: string }>();

/**
 * A keep-alive connection presents the same key request after request, so its hash is kept with the
 * connection (and dropped with it): only a new connection or a different key pays for a SHA-256. The
 * record is still looked up by hash on every request, so a revocation takes effect at once.
 */
function hashOnConnection(req: IncomingMessage, key: string): string {
  const socket = req.socket as Socket | null;
  const last = socket ? lastKeyOf.get(socket) : undefined;
  if (last?.key === key) return last.sha256;
  const sha256 = hashKey(key);
  if (socket) lastKeyOf.set(socket, { key, sha256 });
  return sha256;
}
