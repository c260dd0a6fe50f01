export { MemoryPolicyStore } from './memory-policy-store.js';
export { RedisPolicyStore } from './redis-policy-store.js';
export { Journal } from './journal.js';
export type { JournalRecord } from './journal-record.js';
