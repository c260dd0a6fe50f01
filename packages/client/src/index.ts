/**
 * @tollgate/client — a typed client for Tollgate that follows the service contract's retry rules.
 *
 * @example
 * import { TollgateClient, RateLimitedError } from '@tollgate/client';
 * const tg = new TollgateClient({ baseUrl: 'http://127.0.0.1:8787', apiKey: process.env.TOLLGATE_KEY });
 */
export { TollgateClient, type TollgateClientOptions, type CallOptions } from './tollgate-client.js';
export * from './errors.js';
export { classifyError } from './classify-error.js';
export { retryDelay, type RetryOptions } from './retry-policy.js';
export type * from './types.js';
