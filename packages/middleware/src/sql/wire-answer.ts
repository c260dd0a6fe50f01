import type { QueryOutcome, StatementResult } from './sql-worker-protocol.js';
import type { SqlResult, SqlStatementResult } from './sql-types.js';

/**
 * A query's outcome as the wire shows it (contract §2.2): its last statement's result, or every statement's
 * (`type: "results"`), each with the request's context. Built on the main thread for SqlService.query, and
 * in the SQL worker for the endpoint's answer text (SqlService.queryJson), so both are the same shape.
 */
export function wireAnswer(outcome: QueryOutcome, context: { db: string }): SqlResult {
  if (outcome.results) return { type: 'results', results: outcome.results.map((result) => statementAnswer(result, context)), context };
  return statementAnswer(outcome, context);
}

function statementAnswer(result: StatementResult, context: { db: string }): SqlStatementResult {
  if (result.type === 'table') return { type: 'table', column_names: result.column_names, column_types: result.column_types, data: result.data, context };
  return { type: 'ok', affected_rows: result.affected_rows, context };
}
