export { createPolicy, type PolicyOptions } from './create-policy.js';
export { MemoryPolicyStore } from './memory-policy-store.js';
export { RedisPolicyStore } from './redis-policy-store.js';
export { Journal } from './journal.js';
export type { JournalRecord, LedgerLine } from './journal-record.js';
export { StoreOwner, StoreInUseError, type StoreRole } from './store-owner.js';
export { RemoteAdmin } from './remote-admin.js';
export { LedgerFiles, readLedger, type LedgerFilesOptions } from './ledger-files.js';
export { ledgerDirectoryOf } from './store-files.js';
