import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorFamily } from '../errors/index.js';
import type { ClientDeparture } from '../http/index.js';
import type { RequestObservation } from '../observe/index.js';
import type { Runtime } from '../runtime.js';

/**
 * Everything one request's handler needs. Built once by the dispatcher; handlers read it in a straight
 * line (parse → authenticate → validate → resolve → adapt → admit → upstream → respond → settle).
 */
export interface RequestContext {
  req: IncomingMessage & { body?: unknown };
  res: ServerResponse;
  runtime: Runtime;
  family: ErrorFamily;
  /** A body a framework parser already produced (Koa's `ctx.request.body`). */
  parsedBody?: unknown;
  /** Aborts when the client goes away before the response finished: pass it wherever work should stop then. */
  departure: ClientDeparture;
  /** This request's id, already in the answer's headers; logged with it and written in its ledger line. */
  requestId: string;
  /** Present only when metrics, tracing or access lines are configured; seams fill it in (observe/). */
  observation?: RequestObservation;
}

/** A route's handler. It writes the response itself; anything it throws is rendered by the dispatcher. */
export type EndpointHandler = (ctx: RequestContext) => Promise<void>;
