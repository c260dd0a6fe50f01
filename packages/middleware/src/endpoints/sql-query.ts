import { z } from 'zod';
import { authenticate } from '../auth/index.js';
import { readJsonBody, sendJson } from '../http/index.js';
import { parseBody } from '../validate/index.js';
import type { RequestContext } from './request-context.js';

const sqlValue = z.union([z.number(), z.string(), z.boolean(), z.null()]);

/** Wire schema of `POST /api/sql/query` (contract §2.1; `params` and `context.db` are Tollgate's). */
export const sqlQueryBody = z.object({
  query: z.string().min(1, 'query must not be empty'),
  params: z.union([z.array(sqlValue), z.record(z.string(), sqlValue)]).optional(),
  context: z.object({ db: z.string().min(1).optional() }).optional(),
});

/**
 * `POST /api/sql/query`: one SQL text, possibly several statements, against a named database.
 *
 * @example
 * curl -H 'Authorization: Bearer $KEY' -d '{"query":"SELECT 1 AS one"}' http://127.0.0.1:8787/api/sql/query
 */
export async function sqlQuery(ctx: RequestContext): Promise<void> {
  const { runtime } = ctx;
  const sqlConfig = runtime.config.sql;
  // The statement limit doubles as the body limit, with room for the JSON around it.
  // Step 1: the key, from the headers, before a byte of the body is read (issue 15 item 6).
  if (sqlConfig.auth) await authenticate(ctx.req, await runtime.keyRing(), 'sql');
  const raw = await readJsonBody(ctx.req, { limitBytes: sqlConfig.maxStatementBytes + 64 * 1024, deadlineMs: runtime.config.bodyTimeoutMs, parsed: ctx.parsedBody });
  const body = parseBody(sqlQueryBody, raw);
  const sql = await runtime.sql();
  const result = await sql.query({ query: body.query, params: body.params, db: body.context?.db }, ctx.departure);
  sendJson(ctx.res, 200, result);
}
