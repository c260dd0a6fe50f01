import type { IncomingMessage } from 'node:http';
import { ServiceError } from '../errors/index.js';
import { hashKey, type KeyRing, type Principal, type Scope } from './key-ring.js';

/**
 * The key a request presents: `Authorization: Bearer <key>` (OpenAI SDK) or `x-api-key` (Anthropic SDK).
 * Contract §5 leaves the scheme open; Tollgate accepts both so either official SDK works unchanged.
 */
export function presentedKey(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (typeof header === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match?.[1];
  }
  const apiKey = req.headers['x-api-key'];
  return typeof apiKey === 'string' && apiKey.trim() !== '' ? apiKey.trim() : undefined;
}

/**
 * Step 2 of the pipeline: a missing, malformed, unknown or revoked key — or one without the scope the
 * endpoint needs — answers 401 with no code (contract §5 rule 2).
 *
 * @example
 * const principal = await authenticate(req, runtime.keys, 'sql');
 */
export async function authenticate(req: IncomingMessage, keys: KeyRing, scope: Scope): Promise<Principal> {
  const key = presentedKey(req);
  if (!key) throw new ServiceError('unauthorized', 'Missing API key: send "Authorization: Bearer <key>" or "x-api-key: <key>"');
  const record = await keys.resolve(hashKey(key));
  if (!record || record.revoked) throw new ServiceError('unauthorized', 'Invalid or revoked API key');
  if (!record.scopes.includes(scope)) throw new ServiceError('forbidden_scope', `This API key lacks the "${scope}" scope`);
  return { keyId: record.keyId, org: record.org, scopes: record.scopes };
}
