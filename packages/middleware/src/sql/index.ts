export { SqlService } from './sql-service.js';
export { scanPlaceholders } from './scan-placeholders.js';
export type { SqlQuery, SqlResult, SqlValue, SqlParams } from './sql-types.js';
export { recoverDatabase } from './journal-recovery.js';
export type { JournalEvent } from './page-journal.js';
