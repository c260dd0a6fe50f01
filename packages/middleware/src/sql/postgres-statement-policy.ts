import { RequestFailure } from './request-failure.js';
import { skipLeadingComments, type PostgresStatement } from './postgres-statements.js';

/**
 * The postgres kind's statement policy (README "PostgreSQL"): a request is one transaction on a pooled
 * connection, so nothing may end that transaction or leave state on the connection for the next request.
 * Keyed by the statement's first keyword; PostgreSQL itself refuses the rest inside a transaction block
 * (VACUUM, CREATE DATABASE…) or under READ ONLY.
 */
const refusals: Record<string, [code: string, why: string]> = {
  BEGIN: ['transaction_control', 'Each request runs as one transaction: BEGIN, COMMIT, ROLLBACK and savepoints are not needed'],
  START: ['transaction_control', 'Each request runs as one transaction: BEGIN, COMMIT, ROLLBACK and savepoints are not needed'],
  COMMIT: ['transaction_control', 'Each request runs as one transaction: BEGIN, COMMIT, ROLLBACK and savepoints are not needed'],
  END: ['transaction_control', 'Each request runs as one transaction: BEGIN, COMMIT, ROLLBACK and savepoints are not needed'],
  ROLLBACK: ['transaction_control', 'Each request runs as one transaction: BEGIN, COMMIT, ROLLBACK and savepoints are not needed'],
  ABORT: ['transaction_control', 'Each request runs as one transaction: BEGIN, COMMIT, ROLLBACK and savepoints are not needed'],
  SAVEPOINT: ['transaction_control', 'Each request runs as one transaction: BEGIN, COMMIT, ROLLBACK and savepoints are not needed'],
  RELEASE: ['transaction_control', 'Each request runs as one transaction: BEGIN, COMMIT, ROLLBACK and savepoints are not needed'],
  RESET: ['statement_not_allowed', 'RESET would change the pooled connection for later requests'],
  DISCARD: ['statement_not_allowed', 'DISCARD would change the pooled connection for later requests'],
  LISTEN: ['statement_not_allowed', 'LISTEN has no place in a request/answer endpoint'],
  UNLISTEN: ['statement_not_allowed', 'UNLISTEN has no place in a request/answer endpoint'],
  LOAD: ['statement_not_allowed', 'LOAD would change the pooled connection for later requests'],
  PREPARE: ['statement_not_allowed', 'PREPARE would leave a statement on the pooled connection; send params instead'],
  DEALLOCATE: ['statement_not_allowed', 'DEALLOCATE acts on the pooled connection, not on the request'],
  COPY: ['statement_not_allowed', 'COPY streams outside the request/answer protocol; use INSERT … SELECT or SELECT'],
};

/** `SET` only for the transaction (`SET LOCAL`, `SET CONSTRAINTS`, `SET TRANSACTION`): a session SET outlives the request. */
const transactionSets = /^\s*SET\s+(LOCAL|CONSTRAINTS|TRANSACTION)\b/i;
const temporaryObject = /^\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:GLOBAL\s+|LOCAL\s+)?(?:TEMP|TEMPORARY)\b/i;

export function refusePostgresStatement(statement: PostgresStatement): void {
  const refusal = refusals[statement.keyword];
  if (refusal) throw new RequestFailure(refusal[1], refusal[0]);
  const text = withoutLeadingComments(statement.text);
  if (statement.keyword === 'SET' && !transactionSets.test(text)) {
    throw new RequestFailure('A session SET would change the pooled connection for later requests; use SET LOCAL (it lasts the request)', 'statement_not_allowed');
  }
  if (temporaryObject.test(text)) throw new RequestFailure('Temporary objects would stay on the pooled connection for later requests', 'temp_object_not_allowed');
}

/** Past leading whitespace and comments as PostgreSQL reads them: `--` ends at \n or \r, block comments nest. */
function withoutLeadingComments(text: string): string {
  return text.slice(skipLeadingComments(text));
}
