/**
 * PostgreSQL's SQLSTATE → the SQL endpoint's `error_code`, the same codes the sql.js kind answers (README
 * "SQL endpoint"). Exact codes first, then the class (first two characters); anything else is `sql_error`.
 * https://www.postgresql.org/docs/current/errcodes-appendix.html
 */
const exactCodes: Record<string, string> = {
  '42601': 'syntax_error',
  '42P01': 'no_such_table',
  '42703': 'no_such_column',
  '42804': 'datatype_mismatch',
  '42P18': 'datatype_mismatch',
  '25006': 'read_only',
  '53100': 'database_full',
  '54000': 'result_too_large',
  '42P02': 'parameter_mismatch', // there is no parameter $n (a simple Query)
};

const classCodes: Record<string, string> = {
  '22': 'datatype_mismatch', // data exception: invalid input syntax for a type, out of range, division by zero…
  '23': 'constraint_violation', // integrity constraint violation
  '25': 'transaction_control', // invalid transaction state
  '2D': 'transaction_control', // invalid transaction termination
  '3B': 'transaction_control', // savepoint exception
};

/** 57014 query_canceled says why in its message: statement_timeout, or a cancel request. */
export function classifySqlstate(sqlstate: string | undefined, message: string): string {
  if (sqlstate === undefined) return 'sql_error';
  if (sqlstate === '57014') return /statement timeout/.test(message) ? 'statement_timeout' : 'cancelled';
  // A Bind whose values do not match the statement's $n (`SELECT $2, ?` with one value): the server answered an
  // ERROR (not FATAL) and the connection stays usable.
  if (sqlstate === '08P01' && /^bind message supplies \d+ parameters/.test(message)) return 'parameter_mismatch';
  return exactCodes[sqlstate] ?? classCodes[sqlstate.slice(0, 2)] ?? 'sql_error';
}

/** Socket errors and the server's own shutdown codes: the server is away, so the answer is 503 and a retry. */
const goneSqlstates = new Set(['57P01', '57P02', '57P03', '53300']);
const goneErrnos = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

export function isServerGone(error: unknown): boolean {
  const { code, message, severity } = (error ?? {}) as { code?: string; message?: string; severity?: string };
  // An ErrorResponse of severity ERROR (08P01 for a Bind with too few values among them) ends only the statement:
  // the server is there and the session goes on. FATAL and PANIC close it.
  if (severity === 'ERROR') return false;
  if (code !== undefined && (goneSqlstates.has(code) || goneErrnos.has(code) || code.startsWith('08'))) return true;
  // 'Query read timeout': no answer within statement_timeout plus a grace (a hung server, postgres-database.ts).
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Query read timeout/.test(message ?? '');
}
