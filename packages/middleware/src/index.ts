/**
 * @tollgate/middleware — an embeddable model gateway and SQL endpoint behind one `app.use()`.
 *
 * @example
 * import { tollgate } from '@tollgate/middleware';
 * app.use(tollgate({ keys: [{ key: process.env.TOLLGATE_KEY!, org: 'acme' }], organizations: { acme: {} } }));
 */
export { tollgate, type Tollgate, type TollgateOptions } from './tollgate.js';
export type { Logger, SqlAssets } from './runtime.js';
export { koa } from './koa.js';
export { parseConfig, loadConfigFile, readConfigFile, ConfigError, type ConfigInput, type ResolvedConfig } from './config/index.js';
export { ServiceError, renderError, type ErrorFamily } from './errors/index.js';
export type { AdminOperations, UsageReport, Usage } from './policy/index.js';
export type { SqlQuery, SqlResult, SqlValue, SqlParams } from './sql/sql-types.js';
export type { Clock } from './runtime-clock.js';
export { generateKey, hashKey } from './auth/index.js';
export { jsonLogger, prettyLogger, type AccessLine } from './observe/index.js';
export { defaultModels } from './catalog/index.js';
