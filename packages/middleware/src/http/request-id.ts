import { randomBytes } from 'node:crypto';
import type { ErrorFamily } from '../errors/index.js';

/**
 * The header that carries a request's id in each endpoint family: the one each official SDK reads into its
 * `_request_id` / `requestID` (openai: `x-request-id`; @anthropic-ai/sdk: `request-id`).
 */
export const requestIdHeader: Readonly<Record<ErrorFamily, string>> = {
  openai: 'x-request-id',
  embeddings: 'x-request-id',
  sql: 'x-request-id',
  anthropic: 'request-id',
};

/** The header that carries the upstream provider's own id for the call that answered. */
export const UPSTREAM_REQUEST_ID_HEADER = 'x-upstream-request-id';

// A random prefix per process and a counter: unique across instances sharing a ledger, and a string
// concatenation per request instead of a UUID (the id is minted on every request, the hot path).
const processPrefix = `req_${randomBytes(8).toString('hex')}`;
let sequence = 0;

/**
 * A new request id, unique across processes (a random 64-bit prefix per process, then a counter).
 *
 * @example
 * nextRequestId() // 'req_3f9c0a1be27d4c55_1'
 */
export function nextRequestId(): string {
  sequence++;
  return `${processPrefix}_${sequence.toString(36)}`;
}

/** The provider's own id of an answer: OpenAI sends `x-request-id`, Anthropic `request-id`, Bedrock `x-amzn-requestid`; Gemini sends none. */
export function upstreamRequestIdOf(headers: Record<string, string | string[] | undefined>): string | undefined {
  const id = headers['x-request-id'] ?? headers['request-id'] ?? headers['x-amzn-requestid'];
  return typeof id === 'string' ? id : undefined;
}
