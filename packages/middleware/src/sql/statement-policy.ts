import type { Database } from 'sql.js';
import { checkPragma } from './pragma-policy.js';
import { RequestFailure } from './request-failure.js';
import { isWord, type StatementHead } from './statement-head.js';
import { inspectProgram } from './statement-program.js';

/** Statements refused by their first keyword, before SQLite compiles them, and why. */
const refusedKeywords: Record<string, { code: string; message: string }> = {
  ATTACH: { code: 'statement_not_allowed', message: 'ATTACH is not allowed: a request reaches only the database it names (context.db)' },
  DETACH: { code: 'statement_not_allowed', message: 'DETACH is not allowed: a request reaches only the database it names (context.db)' },
  VACUUM: { code: 'statement_not_allowed', message: 'VACUUM is not allowed: Tollgate owns the database file' },
  BEGIN: transactionControl(),
  COMMIT: transactionControl(),
  END: transactionControl(),
  ROLLBACK: transactionControl(),
  SAVEPOINT: transactionControl(),
  RELEASE: transactionControl(),
};

function transactionControl(): { code: string; message: string } {
  return { code: 'transaction_control', message: 'Each request runs as one transaction: BEGIN, COMMIT, ROLLBACK and savepoints are not needed' };
}

/**
 * The part of the statement policy decided on the statement's tokens, before SQLite compiles it: PRAGMAs
 * act while they compile, so they cannot be prepared first and inspected after.
 *
 * @example
 * checkBeforeCompile(readStatementHead('ATTACH ":memory:" AS x', 0)!) // throws statement_not_allowed
 */
export function checkBeforeCompile(head: StatementHead): void {
  const first = head.tokens[0];
  if (isWord(first, 'PRAGMA')) return checkPragma(head.tokens);
  // EXPLAIN of any other statement shows its program and runs nothing.
  const refusal = !head.explain && first?.kind === 'word' && Object.hasOwn(refusedKeywords, first.text) ? refusedKeywords[first.text] : undefined;
  if (refusal) throw new RequestFailure(refusal.message, refusal.code);
}

/**
 * The part decided on the compiled program: a TEMP object would outlive its request and change what the
 * next request on the connection sees (a TEMP view shadowing a table, a TEMP trigger rewriting writes), so
 * creating one is refused; a read-only request runs no statement that can write. Only CREATE statements
 * can make a TEMP object (none exists to write into), so only they — and every statement of a read-only
 * request — pay for an EXPLAIN. Answers whether the statement can write, when that was learnt.
 *
 * @example
 * checkCompiled(db, head, 'CREATE TEMP TRIGGER …', false) // throws temp_object_not_allowed
 */
export function checkCompiled(db: Database, head: StatementHead, sql: string, readOnly: boolean): boolean | undefined {
  if (head.explain) return false;
  if (!readOnly && !isWord(head.tokens[0], 'CREATE')) return undefined;
  const facts = inspectProgram(db, sql);
  if (facts.writesTemp) {
    throw new RequestFailure('TEMP tables, views, indexes and triggers are not allowed: they would outlive the request and change what later requests on this database see. Use a common table expression (WITH) or a regular table', 'temp_object_not_allowed');
  }
  if (readOnly && facts.canWrite) {
    throw new RequestFailure('This key may only read this database (a "read" grant or the sql:read scope); the statement can write', 'read_only');
  }
  return facts.canWrite;
}
