import { RequestFailure } from './request-failure.js';
import type { Token } from './statement-head.js';

/**
 * What a request may do with each PRAGMA. SQLite applies most settings while it *compiles* a PRAGMA (even
 * under EXPLAIN), so the decision is taken on the statement's tokens before SQLite sees it.
 * - `read`: may be queried, never set — it is connection state shared by every request on the database
 *   (or durability, which Tollgate owns), so a set would change other tenants' requests.
 * - `argument`: takes an argument that only chooses what to read (`table_info(t)`).
 * - `write`: may be set; the value is stored in the database file, in the request's transaction.
 * A PRAGMA absent from this table is refused, also when only read: some act without a value
 * (`optimize`, `shrink_memory`, `incremental_vacuum`) and SQLite ignores unknown ones silently.
 */
const pragmaTable: Record<string, 'read' | 'argument' | 'write'> = {
  application_id: 'write',
  user_version: 'write',
  table_info: 'argument',
  table_xinfo: 'argument',
  table_list: 'argument',
  index_info: 'argument',
  index_xinfo: 'argument',
  index_list: 'argument',
  foreign_key_list: 'argument',
  foreign_key_check: 'argument',
  integrity_check: 'argument',
  quick_check: 'argument',
  auto_vacuum: 'read',
  automatic_index: 'read',
  cache_size: 'read',
  cache_spill: 'read',
  cell_size_check: 'read',
  collation_list: 'read',
  compile_options: 'read',
  data_version: 'read',
  database_list: 'read',
  defer_foreign_keys: 'read',
  encoding: 'read',
  foreign_keys: 'read',
  freelist_count: 'read',
  function_list: 'read',
  ignore_check_constraints: 'read',
  journal_mode: 'read',
  legacy_alter_table: 'read',
  locking_mode: 'read',
  max_page_count: 'read',
  mmap_size: 'read',
  module_list: 'read',
  page_count: 'read',
  page_size: 'read',
  pragma_list: 'read',
  query_only: 'read',
  recursive_triggers: 'read',
  reverse_unordered_selects: 'read',
  schema_version: 'read',
  secure_delete: 'read',
  synchronous: 'read',
  temp_store: 'read',
  trusted_schema: 'read',
  writable_schema: 'read',
};

/**
 * Refuses a PRAGMA the table does not allow (code `pragma_not_allowed`). `tokens` start at the PRAGMA keyword:
 * `PRAGMA [schema.]name [= value | (value)]`.
 *
 * @example
 * checkPragma(readStatementHead('PRAGMA writable_schema = ON', 0)!.tokens) // throws pragma_not_allowed
 */
export function checkPragma(tokens: Token[]): void {
  const named = tokens[2]?.text === '.' ? 3 : 1;
  const name = tokens[named]?.text.toLowerCase() ?? '';
  const sets = tokens.length > named + 1;
  const rule = Object.hasOwn(pragmaTable, name) ? pragmaTable[name] : undefined;
  // Data in the database file only: TEMP's header is connection state every later request (of any organization) reads.
  if (rule === 'write' && sets && named === 3 && tokens[1]!.text.toLowerCase() !== 'main') {
    throw new RequestFailure(`PRAGMA ${tokens[1]!.text}.${name} cannot be set: only the main database's is data; TEMP's would outlive the request`, 'temp_object_not_allowed');
  }
  if (rule === 'write' || rule === 'argument' || (rule === 'read' && !sets)) return;
  const why = rule === 'read' ? `may be read but not set: it changes the connection every request on this database shares` : 'is not allowed';
  throw new RequestFailure(`PRAGMA ${name || '(none)'} ${why}. Allowed to set: user_version, application_id; to read: the informational PRAGMAs (README "Statement policy")`, 'pragma_not_allowed');
}
