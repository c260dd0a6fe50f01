/** SQLite's messages → the stable `error_code` of the SQL endpoint's error body. First match wins. */
const codeTable: [RegExp, string][] = [
  [/syntax error|incomplete input|unrecognized token/i, 'syntax_error'],
  [/constraint failed/i, 'constraint_violation'],
  [/no such table/i, 'no_such_table'],
  [/no such column/i, 'no_such_column'],
  [/cannot (start|commit|rollback)|no transaction is active|within a transaction/i, 'transaction_control'],
  [/datatype mismatch/i, 'datatype_mismatch'],
  [/readonly|read-only/i, 'read_only'],
  // SQLITE_FULL: the file reached max_page_count, i.e. sql.databases.<name>.maxDatabaseBytes.
  [/database or disk is full/i, 'database_full'],
];

export function classifySqlError(message: string): string {
  return codeTable.find(([pattern]) => pattern.test(message))?.[1] ?? 'sql_error';
}
