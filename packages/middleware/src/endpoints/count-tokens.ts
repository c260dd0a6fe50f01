import { authenticate } from '../auth/index.js';
import type { CatalogModel } from '../catalog/index.js';
import { readJsonBody, sendJson } from '../http/index.js';
import { inUpstreamSpan } from '../observe/index.js';
import { definitionOf, prepareCount, type TokenCounter } from '../providers/index.js';
import { estimateInputTokensInTurns } from '../tokenize/index.js';
import { UpstreamFailure } from '../upstream/index.js';
import { parseBody } from '../validate/index.js';
import { countTokensBody } from '../wire/index.js';
import type { RequestContext } from './request-context.js';
import { upstreamCallOf, upstreamServiceError, withRouteRetries } from './upstream-call.js';

/**
 * `POST /v1/messages/count_tokens` (Anthropic-compatible): `{input_tokens}` for a messages request.
 * A primary route whose provider has a count endpoint (`ProviderDefinition.countTokens`) asks it; every other route, or such a
 * one that stays unreachable after its retries, counts with the o200k tokenizer. Authenticated with
 * the `models` scope, neither billed nor counted in rpm/tpm (it generates nothing), but held to the organization's
 * concurrency limit. Every error answers in the Anthropic envelope (contract §2.3 shape 2).
 *
 * @example
 * await new Anthropic({ baseURL: 'http://127.0.0.1:8787', apiKey }).messages.countTokens({ model: 'claude-sonnet', messages })
 */
export async function countTokens(ctx: RequestContext): Promise<void> {
  const { runtime } = ctx;
  // Step 1: the key, from the headers, before a byte of the body is read (issue 15 item 6).
  const principal = await authenticate(ctx.req, await runtime.keyRing(), 'models');
  ctx.observation?.identify(principal);
  const raw = await readJsonBody(ctx.req, { limitBytes: runtime.config.maxBodyBytes, deadlineMs: runtime.config.bodyTimeoutMs, parsed: ctx.parsedBody, uploads: runtime.uploads.of(principal.org) });
  const body = parseBody(countTokensBody, raw);
  const model = runtime.gateway.catalog.resolve(body.model, 'chat');
  // Not admitted (nothing generated, nothing billed), yet each count costs the tokenizer's CPU or a call on the
  // operator's provider key: the organization's counts running at once are held to its concurrency limit.
  const slot = runtime.counts.of(principal.org);
  slot.take();
  try {
    const inputTokens = await countOn(ctx, model, body);
    if (inputTokens !== undefined) sendJson(ctx.res, 200, { input_tokens: inputTokens });
  } finally {
    slot.give();
  }
}

/**
 * The primary route's provider count when it has a count endpoint and answers, else the tokenizer's; undefined
 * once the client left (nothing to answer, nothing to count).
 */
async function countOn(ctx: RequestContext, model: CatalogModel, body: Record<string, unknown>): Promise<number | undefined> {
  const route = model.routes[0]!;
  const counter = definitionOf(route.provider.kind).countTokens;
  const inputTokens = counter ? await askProvider(ctx, model.alias, route, counter, body) : undefined;
  if (ctx.departure.aborted) return undefined;
  return inputTokens ?? (await countLocally(body));
}

/** Counted in turns whatever the body's size (README "Reservations"): no hot path here, and no body stops the others. */
function countLocally(body: Record<string, unknown>): Promise<number> {
  return estimateInputTokensInTurns({ system: body.system, messages: body.messages, tools: body.tools });
}

/** The provider's count, or undefined when it could not be reached (transient failures after retries). */
async function askProvider(ctx: RequestContext, alias: string, route: CatalogModel['routes'][number], counter: TokenCounter, body: Record<string, unknown>): Promise<number | undefined> {
  const upstream = ctx.runtime.gateway.plans.upstreamOf(route.providerName);
  const call = upstreamCallOf(upstream, prepareCount(route.provider, route.model, counter, body, ctx.req.headers), ctx.departure);
  try {
    const response = await withRouteRetries(upstream, ctx.departure, () => tracedPost(ctx, alias, route, call));
    return counter.inputTokens(response.body);
  } catch (error) {
    // The client left (the call was cancelled with it): not a failure of anybody's, nothing to log.
    if (ctx.departure.aborted) return undefined;
    if (error instanceof UpstreamFailure && error.transient) return undefined;
    // contract §2.3: a rejection is relayed like a model call's, with the provider's message, status and body.
    throw upstreamServiceError(error);
  }
}

/** One attempt of the count call, as a client span of the request's (its traceparent sent upstream) when tracing. */
function tracedPost(ctx: RequestContext, alias: string, route: CatalogModel['routes'][number], call: ReturnType<typeof upstreamCallOf>) {
  const { observation } = ctx;
  const { upstream } = ctx.runtime.gateway;
  if (!observation?.span) return upstream.postJson(call);
  const provider = { name: route.providerName, kind: route.provider.kind };
  return inUpstreamSpan(observation, provider, route.model, alias, call.headers, (headers) => upstream.postJson({ ...call, headers }));
}
