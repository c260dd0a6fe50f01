import { adaptParams, adaptationHeaders, type Adaptation } from '../adapt/index.js';
import type { Principal } from '../auth/index.js';
import type { CatalogModel } from '../catalog/index.js';
import { ServiceError, type ErrorName } from '../errors/index.js';
import { SseWriter, UPSTREAM_REQUEST_ID_HEADER, sendJson, upstreamRequestIdOf } from '../http/index.js';
import { endUpstreamSpan, startUpstreamSpan } from '../observe/index.js';
import { runIdempotently } from '../idempotency/index.js';
import { costMicros, type Admission, type AdmissionRequest, type Policy, type RateLimitState, type Usage } from '../policy/index.js';
import { codecFor, framingOf, parseErrorOf, prepareCall, type ClientProtocol, type Codec, type RouteTarget, type SeenUsage } from '../providers/index.js';
import { countTokens, estimateInputTokens } from '../tokenize/index.js';
import { answerTextOf } from '../translate/index.js';
import { UpstreamFailure, withRetries, type RelayLimit, type UpstreamCall, type UpstreamJson, type UpstreamResponse } from '../upstream/index.js';
import type { RequestContext } from './request-context.js';
import { addRateLimitHeaders, COST_HEADER, usdOfMicros } from './success-headers.js';

/** A request that passed steps 1–5 and is ready to be adapted, admitted and sent upstream. */
export interface ModelCall {
  ctx: RequestContext;
  principal: Principal;
  model: CatalogModel;
  protocol: ClientProtocol;
  body: Record<string, unknown>;
}

/** One route, with the body adapted for it (adaptation depends on the provider, so it is per route). */
interface RoutePlan {
  /** The provider's name in the config: a bounded metrics label and the route taken in the access line. */
  providerName: string;
  codec: Codec;
  target: RouteTarget;
  body: Record<string, unknown>;
  adaptation: Adaptation;
  retries: number;
  retryBaseMs: number;
  timeoutMs: number;
  /** `provider/model`, for the route header. */
  route: string;
}

const DEFAULT_OUTPUT_BUDGET = 4_096;

/**
 * Steps 6–11 of the pipeline, in order: adapt → admit (limits, billing) → upstream with retries and
 * failover → respond (JSON or SSE) → settle the metered usage exactly once, whatever happened.
 *
 * @example
 * await runModelCall({ ctx, principal, model, protocol: 'chat', body });
 */
export async function runModelCall(call: ModelCall): Promise<void> {
  const { ctx } = call;
  // Only a request with an Idempotency-Key looks the policy up early (for its records); others go straight on.
  if (ctx.req.headers['idempotency-key'] === undefined) return runOnce(call);
  const policy = await policyOf(call);
  const idempotent = { req: ctx.req, res: ctx.res, org: call.principal.org, body: call.body, departed: () => ctx.departure.aborted, store: policy.idempotency, maxAnswerBytes: ctx.runtime.config.idempotency.maxAnswerBytes };
  await runIdempotently(idempotent, () => runOnce(call));
}

async function runOnce(call: ModelCall): Promise<void> {
  const plans = call.model.routes.map((route) => planRoute(call, route));
  const primary = plans[0]!;
  const promptTokens = once(() => estimateInputTokens(call.body));
  // Tokenizing the prompt costs per request; a tokens-per-minute limit and a priced prompt (its
  // reservation, README "Reservations") need it before the call.
  const limitsTokens = call.ctx.runtime.config.organizations[call.principal.org]?.limits.tpm !== undefined;
  const observation = call.ctx.observation;
  if (observation) {
    observation.org = call.principal.org;
    observation.keyId = call.principal.keyId;
    observation.alias = call.model.alias;
    observation.stream = call.body.stream === true;
    observation.step('resolved');
  }
  const pricedPrompt = call.model.config.price.input > 0;
  const admission = await admit(call, primary, limitsTokens || pricedPrompt ? promptTokens() : 0);
  const meter = new Meter(promptTokens, admission, (reason) => call.ctx.runtime.options.logger.error(`usage: ${call.model.alias} on ${call.model.routes[0]?.provider.kind ?? 'provider'} reported usage that is not token counts (${reason}); billed the tokenizer's count instead`));
  observation?.metrics?.slotTaken(call.principal.org);
  try {
    await serveWithFailover(call, plans, meter);
  } finally {
    // Settles exactly once: a no-op when the response already settled before its last bytes.
    await meter.settle();
    if (observation) observeSettlement(call, meter.usage());
  }
}

function observeSettlement(call: ModelCall, usage: Usage): void {
  const observation = call.ctx.observation!;
  observation.metrics?.slotReleased(call.principal.org);
  observation.inputTokens = usage.inputTokens;
  observation.outputTokens = usage.outputTokens;
  observation.cachedInputTokens = usage.cachedInputTokens ?? 0;
  observation.costMicros = costMicros(usage, call.model.config.price);
  observation.step('settled');
}

function planRoute(call: ModelCall, route: CatalogModel['routes'][number]): RoutePlan {
  const codec = codecFor(call.protocol, route.provider);
  const { config } = call.model;
  const { body, adaptation } = adaptParams(call.body, codec.params, config.params, { fields: codec.outputLimitFields, max: config.maxOutputTokens });
  const target: RouteTarget = { provider: route.provider, model: route.model, alias: call.model.alias, defaultMaxTokens: config.maxOutputTokens ?? DEFAULT_OUTPUT_BUDGET };
  return { providerName: route.providerName, codec, target, body, adaptation, retries: route.provider.maxRetries, retryBaseMs: route.provider.retryBaseMs, timeoutMs: route.provider.timeoutMs, route: `${route.providerName}/${route.model}` };
}

async function policyOf(call: ModelCall): Promise<Policy> {
  try {
    return await call.ctx.runtime.policy();
  } catch (error) {
    // contract §7.1: access that cannot be verified is refused, never run unmetered.
    throw new ServiceError('policy_unavailable', 'Account access could not be verified; retry in a few seconds', { cause: error });
  }
}

async function admit(call: ModelCall, plan: RoutePlan, estimatedInputTokens: number): Promise<Admission> {
  const policy = await policyOf(call);
  const observation = call.ctx.observation;
  const started = observation ? performance.now() : 0;
  try {
    const admission = await policy.admit(admissionRequest(call, plan, estimatedInputTokens));
    observation?.step('admitted');
    return admission;
  } finally {
    if (observation) observation.admitMs = performance.now() - started;
  }
}

function admissionRequest(call: ModelCall, plan: RoutePlan, estimatedInputTokens: number): AdmissionRequest {
  const { config, alias } = call.model;
  const budget = plan.codec.outputLimitFields.map((field) => plan.body[field]).find((value) => typeof value === 'number') as number | undefined;
  // A protocol with no output budget (embeddings) reserves no output tokens.
  const noOutput = plan.codec.outputLimitFields.length === 0 ? 0 : undefined;
  return {
    principal: call.principal,
    alias,
    billing: config.billing,
    price: config.price,
    estimatedInputTokens,
    maxOutputTokens: noOutput ?? budget ?? config.maxOutputTokens ?? DEFAULT_OUTPUT_BUDGET,
    requestId: call.ctx.requestId,
  };
}

/**
 * Tries the routes in the order the alias's strategy gives (README "Routing strategies"); only transient
 * failures move on, and only before output began. Each route's outcome feeds its health: in-flight count,
 * time to first byte, circuit breaker.
 */
async function serveWithFailover(call: ModelCall, plans: RoutePlan[], meter: Meter): Promise<void> {
  let lastFailure: UpstreamFailure | undefined;
  const { routes: board } = call.ctx.runtime.gateway;
  const { clock } = call.ctx.runtime.options;
  const { alias, config } = call.model;
  const observation = call.ctx.observation;
  const order = plans.length === 1 ? SINGLE_ROUTE : board.order(alias, plans.length, config.strategy, call.model.routes.map((route) => route.weight), clock.now());
  for (const [position, index] of order.entries()) {
    const plan = plans[index]!;
    if (observation && position > 0) {
      observation.failovers++;
      observation.metrics?.failovers.inc({ alias });
    }
    const started = clock.now();
    board.started(alias, index);
    let failed = false;
    let tries = 0;
    try {
      await withRetries(() => attempt(call, plan, meter, tries++, () => board.firstByte(alias, index, clock.now() - started)), {
        retries: plan.retries,
        baseMs: plan.retryBaseMs,
        maxMs: 4_000,
        signal: call.ctx.departure,
        classify: (error) => ({
          transient: error instanceof UpstreamFailure && error.transient,
          retryAfterMs: error instanceof UpstreamFailure ? error.details.retryAfterMs : undefined,
        }),
      });
      return;
    } catch (error) {
      if (call.ctx.departure.aborted) return;
      if (error instanceof UpstreamFailure) nameUpstreamRequest(call, error.details.requestId);
      if (!(error instanceof UpstreamFailure) || !error.transient) throw toServiceError(error);
      failed = true;
      lastFailure = error;
    } finally {
      board.ended(alias, index, failed, config.circuitBreaker, clock.now());
    }
  }
  throw toServiceError(lastFailure);
}

const SINGLE_ROUTE = [0];
/** The route that answered, as `provider/model` (its provider's name in the config). */
export const ROUTE_HEADER = 'x-tollgate-route';

/** `retry` counts the earlier attempts on this route (0 for its first); `firstByte` feeds the route's health. */
async function attempt(call: ModelCall, plan: RoutePlan, meter: Meter, retry: number, firstByte: () => void): Promise<void> {
  const { provider } = plan.target;
  const stream = plan.body.stream === true;
  const prepared = prepareCall(plan.codec, plan.target, plan.body, call.ctx.req.headers, stream);
  const upstreamCall: UpstreamCall = {
    target: prepared,
    headers: prepared.headers,
    body: prepared.body,
    timeoutMs: plan.timeoutMs,
    signal: call.ctx.departure,
    parseError: parseErrorOf(provider),
  };
  const { upstream } = call.ctx.runtime.gateway;
  const headers = adaptationHeaders(plan.adaptation);
  // Only organizations with limits pay for these (values computed at admission, no store round trip).
  const { limits } = meter;
  if (limits) addRateLimitHeaders(headers, limits);
  const observation = call.ctx.observation;
  if (!observation) return relay(call, plan, meter, upstream, upstreamCall, headers, stream, firstByte);
  observeAttempt(call, plan, retry);
  if (!observation.span) return relay(call, plan, meter, upstream, upstreamCall, headers, stream, firstByte);
  // Tracing only: a copy of the (shared, cached) provider headers to carry this attempt's traceparent.
  const traced: Record<string, string> = Object.assign({}, upstreamCall.headers);
  const span = startUpstreamSpan(observation, { name: plan.providerName, kind: plan.target.provider.kind }, plan.target.model, plan.target.alias, traced);
  upstreamCall.headers = traced;
  try {
    await relay(call, plan, meter, upstream, upstreamCall, headers, stream, firstByte);
    endUpstreamSpan(span, meter.usage());
  } catch (error) {
    endUpstreamSpan(span, { error });
    throw error;
  }
}

function observeAttempt(call: ModelCall, plan: RoutePlan, retry: number): void {
  const observation = call.ctx.observation!;
  observation.attempts++;
  observation.provider = plan.providerName;
  observation.upstreamModel = plan.target.model;
  observation.step(retry === 0 ? 'upstream' : 'upstream retry');
  observation.metrics?.attempt(plan.providerName, retry > 0);
}

async function relay(call: ModelCall, plan: RoutePlan, meter: Meter, upstream: ModelCall['ctx']['runtime']['gateway']['upstream'], upstreamCall: UpstreamCall, headers: Record<string, string>, stream: boolean, firstByte: () => void): Promise<void> {
  if (stream) {
    const response = await upstream.postStream(upstreamCall);
    firstByte();
    nameUpstreamRequest(call, upstreamRequestIdOf(response.headers));
    nameRoute(call, plan, meter);
    await relayStream(call, plan, response, headers, meter);
  } else {
    const answer = await upstream.postJson(upstreamCall);
    firstByte();
    nameUpstreamRequest(call, upstreamRequestIdOf(answer.headers));
    nameRoute(call, plan, meter);
    await relayJson(call, plan, answer, headers, meter);
  }
}

/** The route that answered, in the `x-tollgate-route` header and in the ledger line (README "Routing strategies"). */
function nameRoute(call: ModelCall, plan: RoutePlan, meter: Meter): void {
  meter.route = plan.route;
  if (!call.ctx.res.headersSent) call.ctx.res.setHeader(ROUTE_HEADER, plan.route);
}

/** The provider's own id of the call that answered, beside Tollgate's, so either side's logs can be searched. */
function nameUpstreamRequest(call: ModelCall, upstreamId: string | undefined): void {
  const { res } = call.ctx;
  if (res.headersSent) return;
  // A failed-over route's id must not stay on the answer of the route after it.
  if (upstreamId === undefined) res.removeHeader(UPSTREAM_REQUEST_ID_HEADER);
  else res.setHeader(UPSTREAM_REQUEST_ID_HEADER, upstreamId);
}

async function relayJson(call: ModelCall, plan: RoutePlan, answer: UpstreamJson, headers: Record<string, string>, meter: Meter): Promise<void> {
  const { body, usage } = plan.codec.response(answer.body, plan.target, plan.body);
  meter.record(usage, usage.reported ? '' : answerTextOf(call.protocol, body), true);
  // A JSON answer is settled before its body is sent (the store's one settle round trip, which was
  // already on this path), so its cost is known and told; a stream's is not (its headers went first).
  const charged = await meter.settle();
  if (charged !== undefined) headers[COST_HEADER] = usdOfMicros(charged);
  call.ctx.observation?.markFirstByte();
  sendJson(call.ctx.res, 200, body, headers);
}

/**
 * Bytes → SSE events → translated client events → SSE writer. Before the first client byte a failure
 * is thrown (and may be retried); after it, the stream ends abnormally with no invented events.
 */
async function relayStream(call: ModelCall, plan: RoutePlan, response: UpstreamResponse, headers: Record<string, string>, meter: Meter): Promise<void> {
  const relay = call.ctx.runtime.config.relay;
  const writer = new SseWriter(call.ctx.res, headers, relay.maxPausedStreamMs);
  const translator = plan.codec.stream(plan.target, plan.body, meter.promptTokens);
  const observation = call.ctx.observation;
  const send = observation
    ? async (events: ReturnType<typeof translator.push>) => {
        for (const event of events) {
          await writer.send(event.data, event.event);
          observation.markFirstByte();
        }
      }
    : async (events: ReturnType<typeof translator.push>) => {
        for (const event of events) await writer.send(event.data, event.event);
      };
  const limits = { maxEventBytes: relay.maxAnswerBytes, maxStreamBytes: relay.maxStreamBytes };
  observation?.metrics?.openStreams.inc();
  try {
    for await (const event of framingOf(plan.target.provider)(response.body, limits, response.secrets)) await send(translator.push(event));
    const closing = translator.end();
    meter.record(translator.usage(), translator.text(), true);
    // The charge is durable before the client sees the stream's normal end.
    await meter.settle();
    await send(closing);
    writer.end();
  } catch (error) {
    // Whatever ended the relay (the provider, a relay limit, a client gone or not reading), the upstream
    // connection goes now, and what was produced is billed below.
    response.body.destroy();
    if (!writer.started && !call.ctx.departure.aborted) {
      // A relay limit is final (not retried) and answers with its own code; a provider's in-stream error
      // with a status (Bedrock's throttlingException) is classified and relayed as that status would be.
      if (error instanceof UpstreamFailure && (error.details.exceeded || error.details.status !== undefined)) throw error;
      throw new UpstreamFailure('Upstream stream failed before any output', { cause: error });
    }
    // Partial output reached (or was meant for) the client: it is billed (contract §1).
    meter.record(translator.usage(), translator.text(), false);
    writer.abort();
  } finally {
    observation?.metrics?.openStreams.dec();
  }
}

function once<T>(compute: () => T): () => T {
  let value: { result: T } | undefined;
  return () => (value ??= { result: compute() }).result;
}

/** The error each relay limit answers with (README "Relay limits"). */
const limitErrors = { answer_size: 'upstream_answer_too_large', deadline: 'upstream_deadline_exceeded' } as const satisfies Record<RelayLimit, ErrorName>;

function toServiceError(error: unknown): ServiceError {
  if (!(error instanceof UpstreamFailure)) return ServiceError.from(error);
  const { exceeded } = error.details;
  if (exceeded) return new ServiceError(limitErrors[exceeded], error.message, { cause: error });
  if (error.unreachable) return new ServiceError('upstream_unreachable', error.message, { cause: error });
  // contract §2.3: relayed errors carry type api_error with the provider's own message and status.
  return new ServiceError('upstream_error', error.message, { status: error.details.status, code: error.details.code, upstreamBody: error.details.body, cause: error });
}

/**
 * What a request will be billed: the provider's report when it gave one, else the tokenizer's count of
 * the prompt and of the output text. For an unfinished stream the larger of report and count is
 * taken, since the provider's running count lags what was already delivered.
 */
class Meter {
  #usage: Usage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, cacheWriteTokens: 0 };

  constructor(
    /** The tokenizer's count of the prompt (memoized), asked only when the provider reports no input tokens or a stream's first event needs it. */
    readonly promptTokens: () => number,
    private readonly admission: Admission,
    /** Told once when a provider's usage was rejected at the codec boundary (translate/usage-report.ts). */
    private readonly reportRejected: (reason: string) => void,
  ) {}

  #rejectionLogged = false;

  /** The route that answered (`provider/model`), for the ledger line. */
  route: string | undefined = undefined;

  /** Settles what was recorded; the admission makes later calls no-ops. Resolves to the micro-dollars charged, if known. */
  settle(): Promise<number | undefined> {
    return this.admission.settle(this.#usage, this.route);
  }

  /** The rate-limit windows after admission, for the success headers; undefined without rpm/tpm limits. */
  get limits(): RateLimitState | undefined {
    return this.admission.limits;
  }

  record(seen: SeenUsage, text: string, finished: boolean): void {
    if (seen.rejected !== undefined && !this.#rejectionLogged) {
      this.#rejectionLogged = true;
      this.reportRejected(seen.rejected);
    }
    const providerCounted = seen.reported && seen.inputTokens > 0;
    const inputTokens = providerCounted ? seen.inputTokens : this.promptTokens();
    // Tokenizing the output only when the provider's report cannot be taken as final: it costs per request.
    const outputTokens = seen.reported && finished ? seen.outputTokens : Math.max(seen.outputTokens, countTokens(text));
    // Cache reads and writes are parts of the provider's prompt count; without that count there are none.
    this.#usage = providerCounted
      ? { inputTokens, outputTokens, cachedInputTokens: seen.cachedInputTokens ?? 0, cacheWriteTokens: seen.cacheWriteTokens ?? 0 }
      : { inputTokens, outputTokens, cachedInputTokens: 0, cacheWriteTokens: 0 };
  }

  usage(): Usage {
    return this.#usage;
  }
}
