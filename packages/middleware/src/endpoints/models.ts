import { authenticate } from '../auth/index.js';
import { sendJson } from '../http/index.js';
import type { RequestContext } from './request-context.js';

/** A fixed creation time: aliases are configuration, not artefacts with a birthday. */
const CREATED = 1_700_000_000;

/**
 * `GET /v1/models`: every alias in the catalog, in OpenAI's list shape — also aliases that are not
 * routable right now (they answer `model_not_configured`, contract §7.1). Raw provider ids never appear.
 */
export async function listModels(ctx: RequestContext): Promise<void> {
  const principal = await authenticate(ctx.req, await ctx.runtime.keyRing(), 'models');
  ctx.observation?.identify(principal);
  const data = ctx.runtime.gateway.catalog.aliases().map(({ alias }) => ({ id: alias, object: 'model', created: CREATED, owned_by: 'tollgate' }));
  sendJson(ctx.res, 200, { object: 'list', data });
}
