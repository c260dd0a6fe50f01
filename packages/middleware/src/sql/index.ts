export { SqlService, type SqlServiceOptions } from './sql-service.js';
export { scanPlaceholders } from './scan-placeholders.js';
export { ungrantedWarning, type SqlCaller } from './access-grants.js';
export type { ColumnType, StorageClass } from './column-types.js';
export type { SqlQuery, SqlResult, SqlStatementResult, SqlStreamEnd, SqlValue, SqlParams } from './sql-types.js';
export { recoverDatabase } from './journal-recovery.js';
export type { JournalEvent } from './page-journal.js';
