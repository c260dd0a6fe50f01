import type { Tollgate } from './tollgate.js';

/** The slice of a Koa context the adapter reads; typed structurally so Koa stays an optional peer. */
interface KoaContext {
  req: import('node:http').IncomingMessage;
  res: import('node:http').ServerResponse;
  request: { body?: unknown };
  /** The URL as the client sent it, before a mount stripped its prefix from `ctx.url`. */
  originalUrl?: string;
  respond?: boolean;
}

/**
 * Adapts the middleware to Koa: `(ctx, next)`. It only translates; the body `@koa/bodyparser` produced
 * is used when present, and Koa is told not to respond itself when Tollgate did.
 *
 * @example
 * app.use(koa(gate));
 */
export function koa(gate: Tollgate) {
  return async function tollgateKoa(ctx: KoaContext, next: () => Promise<unknown>): Promise<void> {
    // Koa keeps the URL the browser sent on the context; Express and connect keep it as `req.originalUrl`,
    // where the console finds the prefix it is mounted under (its page's assets and its cookies' Path).
    const req = ctx.req as { originalUrl?: unknown };
    if (req.originalUrl === undefined && ctx.originalUrl !== undefined) req.originalUrl = ctx.originalUrl;
    const handled = await gate.dispatch(ctx.req, ctx.res, ctx.request.body);
    if (handled) ctx.respond = false;
    else await next();
  };
}
