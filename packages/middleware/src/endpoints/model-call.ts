import type { IncomingMessage } from 'node:http';
import { adaptBody, adaptationHeaders, type Adaptation } from '../adapt/index.js';
import { refuseIfRevokedSince, type Principal } from '../auth/index.js';
import { ServiceError } from '../errors/index.js';
import { SseWriter, UPSTREAM_REQUEST_ID_HEADER, requestIdHeader, sendJsonTextWithOwnHeaders, upstreamRequestIdOf, type CancelSignal } from '../http/index.js';
import { inUpstreamSpan, type RequestObservation } from '../observe/index.js';
import { runIdempotently } from '../idempotency/index.js';
import { costMicros, type Admission, type AdmissionRequest, type Policy, type RateLimitState, type Soon, type Usage } from '../policy/index.js';
import { prepareCall, type ClientEvent, type PromptCount, type SeenUsage, type StreamTranslator, type UpstreamEvent } from '../providers/index.js';
import { DEFAULT_OUTPUT_BUDGET, type ModelPlan, type RoutePlan } from '../routing/index.js';
import { countTokensSoon, embeddingInputTokens, embeddingInputTokensInTurns, estimateInputTokens, estimateInputTokensInTurns } from '../tokenize/index.js';
import { answerTextOf } from '../translate/index.js';
import { UpstreamFailure, type EventSink, type UpstreamBody, type UpstreamCall, type UpstreamJson, type UpstreamResponse } from '../upstream/index.js';
import type { ModelRequestBody } from '../wire/index.js';
import type { RequestContext } from './request-context.js';
import { addRateLimitHeaders, COST_HEADER, usdOfMicros } from './success-headers.js';
import { retriesAfter, upstreamCallOf, upstreamServiceError } from './upstream-call.js';

/** A request that passed steps 1–5 and is ready to be adapted, admitted and sent upstream. */
export interface ModelCall<Body extends ModelRequestBody = ModelRequestBody> {
  ctx: RequestContext;
  principal: Principal;
  /** The alias's routes for this protocol, planned when the gateway started (routing/route-plans.ts). */
  model: ModelPlan;
  body: Body;
}

/** One route's request: its plan and the body adapted for it (adaptation depends on the provider). */
interface RouteRequest {
  plan: RoutePlan;
  /** The route's position in the alias's plan: its health's index on the route board. */
  index: number;
  body: ModelRequestBody;
  adaptation: Adaptation;
  /** What cancels its upstream calls (see runModelCall). */
  cancel: CancelSignal;
  /**
   * When its first attempt started (performance.now()), for its time to first byte. A duration is measured on the
   * monotonic clock, not the wall clock: a jump of the wall clock between the two reads (an NTP step, a VM resumed)
   * was taken for the route's latency, and one month-long "first byte" kept the route last under lowest-latency
   * for the process's life (a route put last is rarely tried, so its average never came back).
   */
  started: number;
}

/**
 * Steps 6–11 of the pipeline, in order: adapt → admit (limits, billing) → upstream with retries and
 * failover → respond (JSON or SSE) → settle the metered usage exactly once, whatever happened.
 *
 * @example
 * await runModelCall({ ctx, principal, model: gateway.plans.resolve(body.model, 'chat'), body });
 */
export function runModelCall<Body extends ModelRequestBody>(call: ModelCall<Body>): Promise<void> {
  const { ctx } = call;
  // The key was checked when the headers came; its body may have taken until now.
  refuseIfRevokedSince(ctx.req, ctx.runtime.keys);
  // Only a request with an Idempotency-Key looks the policy up early (for its records); others go straight on
  // (no async step of their own: each costs a promise and a microtask per request, issue 19).
  if (ctx.req.headers['idempotency-key'] === undefined) return runOnce(call, ctx.departure);
  return runWithIdempotencyKey(call);
}

/** Without an await of its own once the store is up (as admit: policyNowOrLater), so no hop before the claim. */
function runWithIdempotencyKey(call: ModelCall): Promise<void> {
  const policy = policyNowOrLater(call);
  return policy instanceof Promise ? policy.then((ready) => runKeyed(call, ready)) : runKeyed(call, policy);
}

function runKeyed(call: ModelCall, policy: Policy): Promise<void> {
  const { ctx } = call;
  const stream = call.body.stream === true;
  // The id goes in the answer's own headers as for any model call (nameAnswer); a replay is given it too.
  const requestId = [requestIdHeader[ctx.family], ctx.requestId] as const;
  // A replay (or a 409/422) is still a request for this catalog alias: its metrics and access line say so.
  if (ctx.observation) ctx.observation.alias = call.model.alias;
  const idempotent = { req: ctx.req, res: ctx.res, org: call.principal.org, body: call.body, store: policy.idempotency, maxAnswerBytes: ctx.runtime.config.idempotency.maxAnswerBytes, stream, requestId };
  // An idempotent JSON request runs to its answer even when its client leaves first: the answer is kept
  // for the client's retry, which then gets it without a second run or charge (README "Idempotency keys").
  // A stream still stops with its client (what it relayed is billed, and the key is freed).
  const cancel = stream ? ctx.departure : NEVER_CANCELLED;
  return runIdempotently(idempotent, () => runOnce(call, cancel));
}

/** A call that runs to its end whoever leaves (its own timeouts still bound it). */
const NEVER_CANCELLED: CancelSignal = { aborted: false, once: () => undefined, off: () => undefined };

async function runOnce(call: ModelCall, cancel: CancelSignal): Promise<void> {
  // Adapted lazily: a route is adapted when it is tried, and most requests only try their first.
  const primary = adaptFor(call, 0, cancel);
  const meter = new Meter(call);
  const observation = call.ctx.observation;
  if (observation) {
    observation.alias = call.model.alias;
    observation.stream = call.body.stream === true;
    observation.step('resolved');
  }
  // Without a promise when the store answers in process (admitSoon): no microtask for it (issue 19).
  const admitted = observation ? observedAdmit(call, primary, meter) : admit(call, primary, meter);
  meter.admission = admitted instanceof Promise ? await admitted : admitted;
  observation?.metrics?.slotTaken(call.principal.org);
  try {
    await serveWithFailover(call, primary, meter);
  } finally {
    // Settles exactly once: skipped when the answer already settled before its last bytes (a second call
    // would be the admission's no-op, at the price of a promise and a microtask).
    if (!meter.settled) {
      const settled = meter.settle();
      if (settled instanceof Promise) await settled;
    }
    if (observation) observeSettlement(call, meter.usage());
  }
}

function adaptFor(call: ModelCall, index: number, cancel: CancelSignal): RouteRequest {
  const plan = call.model.routes[index]!;
  const { body, adaptation } = adaptBody(call.body, plan.params);
  return { plan, index, body, adaptation, cancel, started: 0 };
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

/** The policy, without an await once the store is up (every request after the first few). */
function policyNowOrLater(call: ModelCall): Policy | Promise<Policy> {
  return call.ctx.runtime.policyIfReady() ?? policyOf(call);
}

async function policyOf(call: ModelCall): Promise<Policy> {
  try {
    return await call.ctx.runtime.policy();
  } catch (error) {
    // contract §7.1: access that cannot be verified is refused, never run unmetered.
    throw new ServiceError('policy_unavailable', 'Account access could not be verified; retry in a few seconds', { cause: error });
  }
}

/**
 * Steps 8–9. The prompt is tokenized before the call when its estimate is needed: by a tokens-per-minute
 * limit (the organization's or the key's), by a priced prompt's reservation, and by an included model's
 * claim on its organization's allowance, which covers prompt tokens too (README "Reservations").
 */
function admit(call: ModelCall, primary: RouteRequest, meter: Meter): Soon<Admission> {
  const policy = policyNowOrLater(call);
  if (policy instanceof Promise) return policy.then((ready) => admitBy(ready, call, primary, meter));
  return admitBy(policy, call, primary, meter);
}

function admitBy(policy: Policy, call: ModelCall, primary: RouteRequest, meter: Meter): Soon<Admission> {
  // A large prompt is counted first, in turns, whether admission needs it or not: every later reader of the count (a
  // provider without usage, a cut stream, a translated stream's message_start) reads it synchronously.
  if (countsInTurns(call.ctx.req)) return meter.countPromptInTurns().then(() => admitCounted(policy, call, primary, meter));
  return admitCounted(policy, call, primary, meter);
}

/**
 * A body over LARGE_BODY_BYTES, or of a length not told (chunked), has its prompt counted in turns of the event loop
 * (README "Reservations"), so one huge prompt cannot stop every other request for seconds; a smaller one is counted at
 * once, without a promise (issue 19: the throughput benchmark counts promises per request).
 */
function countsInTurns(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return length === undefined || Number(length) > LARGE_BODY_BYTES;
}

/** 64 KiB: larger than most prompts, and at most ~50 ms of counting at once (64 KiB of random letters; English: ~2 ms). */
const LARGE_BODY_BYTES = 64 * 1024;

/** Admission proper, once a large prompt's count is in the meter (a small one is counted here, if needed). */
function admitCounted(policy: Policy, call: ModelCall, primary: RouteRequest, meter: Meter): Soon<Admission> {
  const org = call.ctx.runtime.config.organizations[call.principal.org];
  const tokensLimited = org?.limits.tpm !== undefined || call.principal.limits?.tpm !== undefined;
  const claimsAllowance = call.model.config.billing === 'included' && org?.included !== undefined;
  const estimate = tokensLimited || claimsAllowance || call.model.config.price.input > 0 ? meter.promptTokens() : 0;
  return policy.admitSoon(admissionRequest(call, primary, estimate));
}

/** admit, timed and stepped for the observation (metrics, tracing, access lines). */
async function observedAdmit(call: ModelCall, primary: RouteRequest, meter: Meter): Promise<Admission> {
  const observation = call.ctx.observation!;
  const started = performance.now();
  try {
    const admission = await admit(call, primary, meter);
    observation.step('admitted');
    return admission;
  } finally {
    observation.admitMs = performance.now() - started;
  }
}

function admissionRequest(call: ModelCall, primary: RouteRequest, estimatedInputTokens: number): AdmissionRequest {
  const { config, alias } = call.model;
  return {
    principal: call.principal,
    alias,
    billing: config.billing,
    price: config.price,
    estimatedInputTokens,
    maxOutputTokens: worstOutputBudget(call, primary),
    requestId: call.ctx.requestId,
  };
}

/**
 * The largest output budget of the alias's routes, each as adapted for its provider: any of them may serve the
 * request (a failover, another strategy's order), and one may keep what another clamps (`n` on an Anthropic route).
 */
function worstOutputBudget(call: ModelCall, primary: RouteRequest): number {
  const { config, routes } = call.model;
  let worst = outputBudget(primary.plan.codec.outputLimitFields, config.maxOutputTokens, primary.body as Record<string, unknown>);
  for (let index = 0; index < routes.length; index++) {
    if (index === primary.index) continue; // adapted already
    const { body } = adaptBody(call.body, routes[index]!.params);
    worst = Math.max(worst, outputBudget(routes[index]!.codec.outputLimitFields, config.maxOutputTokens, body as Record<string, unknown>));
  }
  return worst;
}

/**
 * The most output tokens the request may produce, which its reservation holds (README "Reservations"): the largest
 * output limit the client set — a route may send either of two (Anthropic and Gemini send `max_completion_tokens`
 * before `max_tokens`) — else the alias's, times its `n` choices (each has the whole budget). A protocol with no
 * output budget (embeddings) reserves none.
 */
function outputBudget(fields: readonly string[], aliasBudget: number | undefined, body: Record<string, unknown>): number {
  if (fields.length === 0) return 0;
  let budget: number | undefined;
  for (const field of fields) {
    const value = body[field];
    if (typeof value === 'number' && (budget === undefined || value > budget)) budget = value;
  }
  const choices = typeof body.n === 'number' && body.n > 1 ? body.n : 1;
  return (budget ?? aliasBudget ?? DEFAULT_OUTPUT_BUDGET) * choices;
}

/**
 * Tries the routes in the order the alias's strategy gives (README "Routing strategies"); only transient
 * failures move on, and only before output began. Each route's outcome feeds its health: in-flight count,
 * time to first byte, circuit breaker.
 */
async function serveWithFailover(call: ModelCall, primary: RouteRequest, meter: Meter): Promise<void> {
  let lastFailure: UpstreamFailure | undefined;
  const { routes: board } = call.ctx.runtime.gateway;
  const { clock } = call.ctx.runtime.options;
  const { alias, config, routes, weights } = call.model;
  const observation = call.ctx.observation;
  const tracked = tracksHealth(call.model);
  const order = tracked ? board.order(alias, routes.length, config.strategy, weights, clock.now()) : SINGLE_ROUTE;
  for (let position = 0; position < order.length; position++) {
    const index = order[position]!;
    const request = index === 0 ? primary : adaptFor(call, index, primary.cancel);
    if (observation && position > 0) {
      observation.failovers++;
      observation.metrics?.failovers.inc({ alias });
    }
    if (tracked) {
      request.started = performance.now();
      board.started(alias, index);
    }
    let failed = false;
    let cancelled = false;
    try {
      // The first attempt awaited here, retries only after it failed: no closure or promise of theirs on every call (issue 19).
      try {
        await attempt(call, request, meter, 0);
      } catch (error) {
        await retriesAfter(request.plan, request.cancel, error, (retry) => attempt(call, request, meter, retry));
      }
      return;
    } catch (error) {
      if (request.cancel.aborted) {
        // Neither a success nor a failure of the route: its breaker's streak stays as it was.
        cancelled = true;
        return;
      }
      if (error instanceof UpstreamFailure) nameFailedUpstream(call, meter, error.details.requestId);
      if (!(error instanceof UpstreamFailure) || !error.transient) throw upstreamServiceError(error);
      failed = true;
      lastFailure = error;
    } finally {
      if (tracked) board.ended(alias, index, cancelled ? undefined : failed, config.circuitBreaker, clock.now());
    }
  }
  throw upstreamServiceError(lastFailure);
}

const SINGLE_ROUTE = [0];

/**
 * A lone route is never ordered, so the board keeps no health for it (RouteBoard.order creates it): its calls
 * skip the board and the clock reads that would only feed it (issue 19).
 */
function tracksHealth(model: ModelPlan): boolean {
  return model.routes.length > 1;
}

/** The route that answered, as `provider/model` (its provider's name in the config). */
export const ROUTE_HEADER = 'x-tollgate-route';

/** `retry` counts the earlier attempts on this route (0 for its first). */
function attempt(call: ModelCall, request: RouteRequest, meter: Meter, retry: number): Promise<void> {
  const { plan } = request;
  const stream = request.body.stream === true;
  const upstreamCall = upstreamCallOf(plan, prepareCall(plan.codec, plan.target, request.body, call.ctx.req.headers, stream), request.cancel);
  const headers = adaptationHeaders(request.adaptation);
  // Only organizations with limits pay for these (values computed at admission, no store round trip).
  const { limits } = meter;
  if (limits) addRateLimitHeaders(headers, limits);
  const observation = call.ctx.observation;
  if (!observation) return relay(call, request, meter, upstreamCall, headers, stream);
  observeAttempt(call, plan, retry);
  if (!observation.span) return relay(call, request, meter, upstreamCall, headers, stream);
  return tracedRelay(call, request, meter, upstreamCall, headers, stream);
}

function tracedRelay(call: ModelCall, request: RouteRequest, meter: Meter, upstreamCall: UpstreamCall, headers: Record<string, string>, stream: boolean): Promise<void> {
  const { plan } = request;
  const provider = { name: plan.providerName, kind: plan.provider.kind };
  return inUpstreamSpan(call.ctx.observation!, provider, plan.target.model, plan.target.alias, upstreamCall.headers, (traced) => {
    upstreamCall.headers = traced;
    return relay(call, request, meter, upstreamCall, headers, stream);
  }, () => meter.usage());
}

function observeAttempt(call: ModelCall, plan: RoutePlan, retry: number): void {
  const observation = call.ctx.observation!;
  observation.attempts++;
  observation.provider = plan.providerName;
  observation.upstreamModel = plan.target.model;
  observation.step(retry === 0 ? 'upstream' : 'upstream retry');
  observation.metrics?.attempt(plan.providerName, retry > 0);
}

function relay(call: ModelCall, request: RouteRequest, meter: Meter, upstreamCall: UpstreamCall, headers: Record<string, string>, stream: boolean): Promise<void> {
  return stream ? relayStreamed(call, request, meter, upstreamCall, headers) : relayJson(call, request, meter, upstreamCall, headers);
}

async function relayStreamed(call: ModelCall, request: RouteRequest, meter: Meter, upstreamCall: UpstreamCall, headers: Record<string, string>): Promise<void> {
  const response = await call.ctx.runtime.gateway.upstream.postStream(upstreamCall);
  firstByte(call, request);
  nameAnswer(call, headers, request.plan, meter, upstreamRequestIdOf(response.headers));
  await relayStream(call, request, response, headers, meter);
}

/** The route's first byte arrived: its time to first byte feeds its health (the lowest-latency strategy). */
function firstByte(call: ModelCall, request: RouteRequest): void {
  if (!tracksHealth(call.model)) return;
  call.ctx.runtime.gateway.routes.firstByte(call.model.alias, request.index, performance.now() - request.started);
}

/**
 * The answer's names, in its own header object (written by one writeHead, never setHeader: see
 * Route.writesRequestId): Tollgate's request id, the route that answered (`x-tollgate-route`, also the
 * ledger line's, README "Routing strategies") and the provider's own id of the call, so either side's logs
 * can be searched. A failed-over route's provider id is never on it: each attempt has its own object.
 */
function nameAnswer(call: ModelCall, headers: Record<string, string>, plan: RoutePlan, meter: Meter, upstreamId: string | undefined): void {
  meter.route = plan.route;
  // A failed-over route's id must not stay on the answer of the route after it.
  if (meter.failedUpstreamNamed) nameFailedUpstream(call, meter, undefined);
  headers[requestIdHeader[call.ctx.family]] = call.ctx.requestId;
  headers[ROUTE_HEADER] = plan.route;
  if (upstreamId !== undefined) headers[UPSTREAM_REQUEST_ID_HEADER] = upstreamId;
}

/**
 * The provider's id of a failed call (or of an answer that failed after it arrived) on the response the error is
 * rendered on; undefined takes an earlier route's off.
 */
function nameFailedUpstream(call: ModelCall, meter: Meter, upstreamId: string | undefined): void {
  const { res } = call.ctx;
  if (res.headersSent) return;
  meter.failedUpstreamNamed = upstreamId !== undefined;
  if (upstreamId === undefined) res.removeHeader(UPSTREAM_REQUEST_ID_HEADER);
  else res.setHeader(UPSTREAM_REQUEST_ID_HEADER, upstreamId);
}

/** The answer is handled in the upstream call's own callback (postJsonThen): no promise or microtask of its own (issue 19). */
function relayJson(call: ModelCall, request: RouteRequest, meter: Meter, upstreamCall: UpstreamCall, headers: Record<string, string>): Promise<void> {
  return call.ctx.runtime.gateway.upstream.postJsonThen(upstreamCall, (answer) => answerJson(call, request, meter, headers, answer));
}

function answerJson(call: ModelCall, request: RouteRequest, meter: Meter, headers: Record<string, string>, answer: UpstreamJson): void | Promise<void> {
  firstByte(call, request);
  const upstreamId = upstreamRequestIdOf(answer.headers);
  const { plan } = request;
  nameAnswer(call, headers, plan, meter, upstreamId);
  try {
    const { body, usage } = plan.codec.response(answer.body, plan.target, request.body, meter);
    const payload = answerPayload(body);
    const recorded = meter.record(usage, usage.reported ? '' : answerTextOf(call.model.protocol, body), true);
    if (recorded) return recorded.then(() => settleAndSend(call, meter, headers, payload, upstreamId));
    return settleAndSend(call, meter, headers, payload, upstreamId);
  } catch (error) {
    // An error rendered instead of this answer still names the provider's call (its logs hold the answer).
    nameFailedUpstream(call, meter, upstreamId);
    throw error;
  }
}

/**
 * The answer as the client gets it, serialized before it is billed: JSON that JSON.parse read but JSON.stringify
 * cannot write (nested past its call stack, ~10,000 levels) was billed, then answered 500. It is the provider's
 * unreadable answer instead (retried, failed over, then 502, nothing billed).
 */
function answerPayload(body: unknown): string {
  try {
    return JSON.stringify(body);
  } catch (error) {
    throw new UpstreamFailure('Upstream provider sent an answer that cannot be relayed as JSON', { cause: error });
  }
}

/**
 * A JSON answer is settled before its body is sent (the store's one settle round trip, which was already on this
 * path), so its cost is known and told; a stream's is not (its headers went first).
 */
function settleAndSend(call: ModelCall, meter: Meter, headers: Record<string, string>, payload: string, upstreamId: string | undefined): void | Promise<void> {
  const charged = meter.settle();
  if (charged instanceof Promise) return sendJsonLater(call, meter, headers, payload, charged, upstreamId);
  sendJsonAnswer(call, meter, headers, payload, charged);
}

/** answerJson's end once a store that is waited for (Redis, a ledger file) settled. */
async function sendJsonLater(call: ModelCall, meter: Meter, headers: Record<string, string>, payload: string, charged: Promise<number | undefined>, upstreamId: string | undefined): Promise<void> {
  try {
    sendJsonAnswer(call, meter, headers, payload, await charged);
  } catch (error) {
    nameFailedUpstream(call, meter, upstreamId);
    throw error;
  }
}

function sendJsonAnswer(call: ModelCall, meter: Meter, headers: Record<string, string>, payload: string, charged: number | undefined): void {
  meter.settled = true;
  if (charged !== undefined) headers[COST_HEADER] = usdOfMicros(charged);
  call.ctx.observation?.markFirstByte();
  sendJsonTextWithOwnHeaders(call.ctx.res, 200, payload, headers);
}

/**
 * Bytes → framed events → translated client events → SSE writer, pushed as the bytes arrive
 * (UpstreamBody.relay; the client's backpressure pauses the upstream body). Before the first client byte a
 * failure is thrown (and may be retried); after it, the stream ends abnormally with no invented events.
 */
async function relayStream(call: ModelCall, request: RouteRequest, response: UpstreamResponse, headers: Record<string, string>, meter: Meter): Promise<void> {
  const relay = call.ctx.runtime.config.relay;
  const { plan } = request;
  const writer = new SseWriter(call.ctx.res, headers, relay.maxPausedStreamMs);
  const translator = plan.codec.stream(plan.target, request.body, () => meter.promptTokens());
  const observation = call.ctx.observation;
  const limits = { maxEventBytes: relay.maxAnswerBytes, maxStreamBytes: relay.maxStreamBytes };
  observation?.metrics?.openStreams.inc();
  try {
    const events = new TranslatedEvents(writer, translator, observation, response.body);
    try {
      await response.body.relay(plan.framing, limits, response.secrets, events);
    } catch (error) {
      if (!events.cutAfterLastEvent) throw error;
    } finally {
      events.close();
    }
    const closing = translator.end();
    const recorded = meter.record(translator.usage(), translator.text(), true);
    if (recorded) await recorded;
    // The charge is durable before the client sees the stream's normal end.
    await meter.settle();
    await sendEvents(writer, closing, observation);
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
    // Partial output reached (or was meant for) the client: it is billed (contract §1). Megabytes of it are counted
    // in turns of the event loop (Meter.record), after the client's stream ended.
    const recorded = meter.record(translator.usage(), translator.text(), false);
    writer.abort();
    if (recorded) await recorded;
  } finally {
    observation?.metrics?.openStreams.dec();
  }
}

/**
 * How long a provider may hold its stream open after its last event (StreamTranslator.ended) before the relay stops
 * reading it and ends the client's stream: long enough that a well-behaved connection ends by itself and stays
 * reusable, short enough that a client is not held for the attempt's whole deadline.
 */
const AFTER_LAST_EVENT_MS = 1000;

/** Upstream events → the client: translated and written as they come; false once the client's buffer is full. */
class TranslatedEvents implements EventSink<UpstreamEvent> {
  #afterLastEvent: NodeJS.Timeout | undefined;
  /** The upstream body was cut because it stayed open past AFTER_LAST_EVENT_MS after its last event. */
  cutAfterLastEvent = false;

  constructor(
    private readonly writer: SseWriter,
    private readonly translator: StreamTranslator,
    private readonly observation: RequestObservation | undefined,
    private readonly body: UpstreamBody,
  ) {}

  push(event: UpstreamEvent): boolean {
    // Nothing after the provider's last event belongs to the answer (StreamTranslator.ended): not relayed, not metered.
    if (this.translator.ended) return true;
    let ready = true;
    for (const { data, event: name } of this.translator.push(event)) {
      ready = this.writer.write(data, name) && ready;
      this.observation?.markFirstByte();
    }
    if (this.translator.ended && this.#afterLastEvent === undefined) this.#afterLastEvent = setTimeout(() => this.#cut(), AFTER_LAST_EVENT_MS);
    return ready;
  }

  close(): void {
    clearTimeout(this.#afterLastEvent);
  }

  #cut(): void {
    this.cutAfterLastEvent = true;
    this.body.destroy();
  }

  drained(): Promise<void> {
    return this.writer.drained();
  }
}

async function sendEvents(writer: SseWriter, events: readonly ClientEvent[], observation: RequestObservation | undefined): Promise<void> {
  for (const event of events) {
    await writer.send(event.data, event.event);
    observation?.markFirstByte();
  }
}

/** Nothing recorded yet; replaced, never written to. */
const NO_USAGE: Usage = Object.freeze({ inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, cacheWriteTokens: 0 });

/**
 * What a request will be billed: the provider's report when it gave one, else the tokenizer's count of
 * the prompt and of the output text. For an unfinished stream the larger of report and count is
 * taken, since the provider's running count lags what was already delivered.
 */
class Meter implements PromptCount {
  #usage: Usage = NO_USAGE;
  #promptTokens = -1;
  #rejectionLogged = false;
  /** Set once admitted, before anything is recorded or settled. */
  admission!: Admission;

  constructor(private readonly call: ModelCall) {}

  /**
   * The tokenizer's count of the prompt, computed on first call: asked only when admission needs it (a
   * tokens-per-minute limit, a priced prompt), when the provider reports no input tokens, or a stream's first event needs it.
   */
  promptTokens(): number {
    // A method, not an arrow property: no closure per request (a stream's translator gets one of its own).
    if (this.#promptTokens >= 0) return this.#promptTokens;
    const { call } = this;
    // An embeddings prompt is its input alone, token-id arrays included (README: input tokens are billed).
    return (this.#promptTokens = call.model.protocol === 'embeddings' ? embeddingInputTokens((call.body as { input?: unknown }).input) : estimateInputTokens(call.body));
  }

  /** promptTokens()'s count, counted in turns of the event loop (a large body: countsInTurns); promptTokens() then returns it. */
  async countPromptInTurns(): Promise<void> {
    const { call } = this;
    this.#promptTokens = call.model.protocol === 'embeddings' ? await embeddingInputTokensInTurns((call.body as { input?: unknown }).input) : await estimateInputTokensInTurns(call.body);
  }

  /** The route that answered (`provider/model`), for the ledger line. */
  route: string | undefined = undefined;

  /** A settle already finished (a JSON answer's, before its body): a later one would be the admission's no-op. */
  settled = false;

  /** A failed call's provider id is on the response (set, not in an answer's own headers). */
  failedUpstreamNamed = false;

  /**
   * Settles what was recorded; the admission makes later calls no-ops. The micro-dollars charged, if known: a
   * value when the store settled at once (Admission.settleSoon), else a promise of it.
   */
  settle(): Soon<number | undefined> {
    return this.admission.settleSoon(this.#usage, this.route);
  }

  /** The rate-limit windows after admission, for the success headers; undefined without rpm/tpm limits. */
  get limits(): RateLimitState | undefined {
    return this.admission.limits;
  }

  /**
   * Records what the answer will be billed. A promise only when the output must be counted and is longer than one
   * turn of the event loop (tokenize: countTokensSoon), so megabytes of unreported output stop no other request.
   */
  record(seen: SeenUsage, text: string, finished: boolean): void | Promise<void> {
    if (seen.rejected !== undefined && !this.#rejectionLogged) {
      this.#rejectionLogged = true;
      const { call } = this;
      call.ctx.runtime.options.logger.error(`usage: ${call.model.alias} on ${call.model.routes[0]!.provider.kind} reported usage that is not token counts (${seen.rejected}); billed the tokenizer's count instead`);
    }
    // Tokenizing the output only when the provider's report cannot be taken as final: it costs per request.
    if (seen.reported && finished) return this.#recordWith(seen, seen.outputTokens);
    const counted = countTokensSoon(text);
    if (typeof counted === 'number') return this.#recordWith(seen, Math.max(seen.outputTokens, counted));
    return counted.then((tokens) => this.#recordWith(seen, Math.max(seen.outputTokens, tokens)));
  }

  #recordWith(seen: SeenUsage, outputTokens: number): void {
    const providerCounted = seen.reported && seen.inputTokens > 0;
    const inputTokens = providerCounted ? seen.inputTokens : this.promptTokens();
    // Cache reads and writes are parts of the provider's prompt count; without that count there are none.
    this.#usage = providerCounted
      ? { inputTokens, outputTokens, cachedInputTokens: seen.cachedInputTokens ?? 0, cacheWriteTokens: seen.cacheWriteTokens ?? 0 }
      : { inputTokens, outputTokens, cachedInputTokens: 0, cacheWriteTokens: 0 };
  }

  usage(): Usage {
    return this.#usage;
  }
}
