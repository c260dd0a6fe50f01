import type { IncomingMessage } from 'node:http';
import { renderError, ServiceError } from '../errors/index.js';
import { requestIdHeader } from '../http/index.js';
import type { SqlCaller, SqlQuery, SqlService, SqlStreamEnd } from '../sql/index.js';
import type { RequestContext } from './request-context.js';

const NDJSON = 'application/x-ndjson';

/** Whether the client asked for NDJSON in `Accept` (an opt-in: JSON stays the default, contract §2.2). */
export function wantsNdjson(req: IncomingMessage): boolean {
  const accept = req.headers.accept;
  return typeof accept === 'string' && accept.includes(NDJSON);
}

/**
 * Answers a SQL request as NDJSON (README "Streamed answers"): a header line
 * `{"type":"table","column_names":[…],"column_types":[{"declared":…}]}`, one JSON array per row, and a last
 * line `{"type":"end","row_count":N,"column_types":[…],"context":{…}}` written only once the request's
 * changes are committed. A failure before the first line is a normal JSON error; after it, an error line
 * (`{"type":"error",…}`) ends the stream — a stream without its `end` line did not succeed. A statement
 * without rows answers its `ok` object as the one line before `end`.
 *
 * @example
 * curl -H 'Accept: application/x-ndjson' -d '{"query":"SELECT * FROM big"}' …/api/sql/query
 */
export async function streamSqlAnswer(ctx: RequestContext, sql: SqlService, request: SqlQuery, caller: SqlCaller | undefined): Promise<void> {
  const { res } = ctx;
  const start = () => {
    if (!res.headersSent) res.writeHead(200, { 'content-type': NDJSON, 'cache-control': 'no-store', [requestIdHeader.sql]: ctx.requestId });
  };
  let end: SqlStreamEnd;
  try {
    end = await sql.stream(request, ctx.departure, caller, (text, release) => {
      start();
      // Credit goes back when the socket took the chunk: a slow reader slows the worker, not memory.
      if (res.write(text)) release();
      else res.once('drain', release);
    });
  } catch (error) {
    if (!res.headersSent) throw error;
    if (!res.destroyed) res.end(`${JSON.stringify(renderError(ServiceError.from(error), 'sql').body)}\n`);
    return;
  }
  start();
  const last = end.type === 'ok' ? `${JSON.stringify(end)}\n` : '';
  const summary = end.type === 'table' ? { type: 'end', row_count: end.row_count, column_types: end.column_types, context: end.context } : { type: 'end', row_count: 0, context: end.context };
  res.end(`${last}${JSON.stringify(summary)}\n`);
}
