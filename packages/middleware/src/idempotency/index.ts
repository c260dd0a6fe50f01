export type { IdempotencyStore, IdempotencyClaim, StoredAnswer } from './idempotency-types.js';
export { ANSWER_TTL_MS, RUNNING_TTL_MS } from './idempotency-types.js';
export { MemoryIdempotencyStore } from './memory-idempotency-store.js';
export { runIdempotently } from './idempotent-call.js';
