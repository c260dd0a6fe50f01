import type { z } from 'zod';
import type { MaybeParsedRequest } from '../http/index.js';
import { parseBody, takenAsSentCheck } from '../validate/index.js';
import type { RequestContext } from './request-context.js';

/** A model endpoint's body check, compiled once per schema. */
export type BodyCheck<T> = (ctx: RequestContext, raw: unknown) => T;

/**
 * The body checked against its schema. Most bodies are taken as the client sent them, without zod's copy
 * (README "Request validation keeps the client's key order"; issue 19); anything the compiled check cannot vouch
 * for — every refusal, an own `__proto__`, a key zod would strip, a schema it cannot compile — goes through zod,
 * which also renders every error.
 *
 * @example
 * const checkChatBody = bodyCheck(chatCompletionsBody);
 * const body = checkChatBody(ctx, raw);
 */
export function bodyCheck<Schema extends z.ZodType>(schema: Schema): BodyCheck<z.output<Schema>> {
  const asSent = takenAsSentCheck(schema);
  if (!asSent) return (_ctx, raw) => parseBody(schema, raw);
  return (ctx, raw) => (zodsCopyNeeded(ctx) || !asSent(raw) ? parseBody(schema, raw) : (raw as z.output<Schema>));
}

/**
 * A body a host's parser read (Express's `req.body`) is the host's object: the pipeline works on zod's copy. A keyed
 * request's too: its Idempotency-Key fingerprint hashes the body's JSON, and zod's copy puts the fields in the
 * schema's order, so a retry re-serialized with its keys in another order is the same request (README
 * "Idempotency keys").
 */
function zodsCopyNeeded(ctx: RequestContext): boolean {
  return ctx.parsedBody !== undefined || (ctx.req as MaybeParsedRequest).body !== undefined || ctx.req.headers['idempotency-key'] !== undefined;
}
