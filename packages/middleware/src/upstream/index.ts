export { UpstreamClient, type UpstreamCall, type UpstreamJson, type UpstreamResponse, type UpstreamTarget } from './upstream-client.js';
export { UpstreamFailure, answerTooLarge, type RelayLimit } from './upstream-failure.js';
export { redactSecrets } from './redact-secrets.js';
export { retryAfter, withRetries, type RetryPolicy, type AttemptFailure } from './with-retries.js';
export { sseDecoding, type SseLimits } from './read-sse.js';
export { pulled, type FrameDecoder, type FrameDecoding } from './frame-decoder.js';
export type { EventSink, UpstreamBody } from './streamed-answer.js';
