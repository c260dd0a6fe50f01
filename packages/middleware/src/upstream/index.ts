export { UpstreamClient, type UpstreamCall, type UpstreamJson, type UpstreamResponse, type UpstreamTarget } from './upstream-client.js';
export { UpstreamFailure, type RelayLimit } from './upstream-failure.js';
export { withRetries, type RetryPolicy, type AttemptFailure } from './with-retries.js';
export { readSseEvents, type SseLimits } from './read-sse.js';
