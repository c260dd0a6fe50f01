import { z } from 'zod';
import { authenticate, refuseIfRevokedSince } from '../auth/index.js';
import { BODY_NOT_READ, readJsonBody, readJsonBodyNow, requestIdHeader } from '../http/index.js';
import { denials } from '../policy/index.js';
import type { SqlCaller } from '../sql/index.js';
import { parseBody } from '../validate/index.js';
import type { RequestContext } from './request-context.js';
import { streamSqlAnswer, wantsNdjson } from './sql-stream.js';

/**
 * Text SQLite can store: no lone UTF-16 surrogate (JSON's `"\ud800"` escape). SQLite's text is UTF-8, which has no
 * encoding for one: a statement holding one was refused with an internal message ("statement text out of step"), and
 * a parameter was written as three U+FFFD characters, not the text that was sent.
 */
const sqlText = z.string().refine((text) => text.isWellFormed(), { message: 'holds a lone UTF-16 surrogate (an unpaired \\ud800–\\udfff escape), which SQLite\'s UTF-8 text cannot store' });

const sqlValue = z.union([z.number(), sqlText, z.boolean(), z.null()]);

/** Wire schema of `POST /api/sql/query` (contract §2.1; everything but `query` is Tollgate's and optional). */
export const sqlQueryBody = z
  .object({
    query: sqlText.min(1, 'query must not be empty'),
    params: z.union([z.array(sqlValue), z.record(sqlText, sqlValue)]).optional(),
    context: z.object({ db: z.string().min(1).optional() }).optional(),
    /** `all`: every statement's result (`type: "results"`); default `last`, the contract's answer. */
    results: z.enum(['last', 'all']).optional(),
    /** `ndjson`: the last statement's rows streamed, one line each (also `Accept: application/x-ndjson`). */
    format: z.enum(['json', 'ndjson']).optional(),
  })
  .refine((body) => !(body.results === 'all' && body.format === 'ndjson'), { message: 'results "all" cannot be streamed: stream one statement at a time', path: ['results'] });

type SqlQueryBody = z.output<typeof sqlQueryBody>;

/**
 * The common body, `{query}` or `{query, params: [scalars]}`, taken as it is: the schema would accept it
 * unchanged (same fields, nothing to strip, the refine cannot fail), and running zod's object, union and
 * refine on it was ~1.5 % of a point select's server CPU (issue 20). Anything else, including every input the
 * schema refuses, goes through the schema, so every answer (422 detail included) stays the schema's.
 */
function plainSqlBody(raw: unknown): SqlQueryBody | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const { query, params } = raw as { query?: unknown; params?: unknown };
  if (typeof query !== 'string' || query.length === 0 || !query.isWellFormed() || Object.keys(raw).length !== (params === undefined ? 1 : 2)) return undefined;
  if (params === undefined) return { query };
  if (!Array.isArray(params)) return undefined;
  // By index, not every(): a hole in a framework-built array is undefined to the schema, which refuses it.
  for (let index = 0; index < params.length; index++) if (!isSqlScalar(params[index])) return undefined;
  return { query, params: params as SqlQueryBody['params'] };
}

/** What `sqlValue` accepts: zod's number refuses NaN and ±Infinity (a framework's parsed body could hold them). */
function isSqlScalar(value: unknown): boolean {
  return value === null || (typeof value === 'string' && value.isWellFormed()) || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

/** Scopes that reach the SQL endpoint: `sql`, or `sql:read` for statements that cannot write. */
const sqlScopes = ['sql', 'sql:read'] as const;

/**
 * `POST /api/sql/query`: one SQL text, possibly several statements, against a named database the key's
 * organization was granted.
 *
 * @example
 * curl -H 'Authorization: Bearer $KEY' -d '{"query":"SELECT 1 AS one"}' http://127.0.0.1:8787/api/sql/query
 */
export async function sqlQuery(ctx: RequestContext): Promise<void> {
  const { runtime } = ctx;
  const sqlConfig = runtime.config.sql;
  // The statement limit doubles as the body limit, with room for the JSON around it.
  // Step 1: the key, from the headers, before a byte of the body is read (issue 15 item 6).
  // One turn here, always (the ring's promise): node:http pushes a small body into the request after this handler's
  // first synchronous stretch, and readJsonBodyNow takes a body already buffered in one read (no promise, no timer).
  // A known key and the open SQL service are then taken without a further await (issue 20).
  const keys = await runtime.keyRing();
  const authenticated = sqlConfig.auth ? authenticate(ctx.req, keys, sqlScopes) : undefined;
  const principal = authenticated instanceof Promise ? await authenticated : authenticated;
  if (principal) ctx.observation?.identify(principal);
  // A created key outlives its organization's removal from the config: refused as the model endpoints refuse it.
  if (principal && !Object.hasOwn(runtime.config.organizations, principal.org)) throw denials.organizationGone();
  const caller: SqlCaller | undefined = principal && { org: principal.org, readOnlyScope: !principal.scopes.includes('sql') };
  const options = { limitBytes: sqlConfig.maxStatementBytes + 64 * 1024, deadlineMs: runtime.config.bodyTimeoutMs, parsed: ctx.parsedBody, uploads: caller && runtime.uploads.of(caller.org) };
  const now = readJsonBodyNow(ctx.req, options);
  const raw = now !== BODY_NOT_READ ? now : await readJsonBody(ctx.req, options);
  const body = plainSqlBody(raw) ?? parseBody(sqlQueryBody, raw);
  // The key was checked when the headers came; its body may have taken until now.
  if (principal) refuseIfRevokedSince(ctx.req, keys);
  // A database runs its statements one after another: each one queued is time every other tenant waits, so an
  // organization's requests in flight are held to its concurrency limit (README "The SQL endpoint").
  const slot = caller && runtime.sqlInFlight.of(caller.org);
  slot?.take();
  try {
    const sql = runtime.sqlIfReady() ?? (await runtime.sql());
    const request = { query: body.query, params: body.params, db: body.context?.db, allResults: body.results === 'all' };
    // An Accept header is a preference: a request for every statement's result is answered as JSON.
    if (body.format === 'ndjson' || (body.format === undefined && !request.allResults && wantsNdjson(ctx.req))) return await streamSqlAnswer(ctx, sql, request, caller);
    const text = await sql.queryJson(request, ctx.departure, caller);
    // Already JSON (built in the SQL worker): only its bytes are written here.
    // The request id in the same object (Route.writesRequestId): one writeHead, Node's fast path.
    ctx.res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), [requestIdHeader.sql]: ctx.requestId });
    ctx.res.end(text);
  } finally {
    slot?.give();
  }
}
