export { SqlService } from './sql-service.js';
export { scanPlaceholders } from './scan-placeholders.js';
export type { SqlQuery, SqlResult, SqlValue, SqlParams } from './sql-types.js';
