import { ServiceError, type ErrorName } from '../errors/index.js';
import type { PreparedRequest } from '../providers/index.js';
import type { UpstreamRoute } from '../routing/index.js';
import { retryAfter, UpstreamFailure, withRetries, type RelayLimit, type UpstreamCall } from '../upstream/index.js';
import type { CancelSignal } from '../http/index.js';

/**
 * The one assembly of a call to a provider, whichever endpoint makes it (model calls, count_tokens): the
 * request as its provider prepared it (URL, headers and credentials or a signature, body bytes), the route's
 * timeout and error parser, and what cancels it (the client's departure, as a rule).
 *
 * @example
 * const answer = await upstream.postJson(upstreamCallOf(route, prepareCount(provider, model, counter, body, req.headers), ctx.departure));
 */
export function upstreamCallOf(route: UpstreamRoute, prepared: PreparedRequest, cancel: CancelSignal): UpstreamCall {
  return {
    target: prepared,
    headers: prepared.headers,
    body: prepared.body,
    timeoutMs: route.timeoutMs,
    signal: cancel,
    parseError: route.parseError,
  };
}

/** Runs `attempt` with the route's retries (transient failures only), stopping once cancelled. */
export function withRouteRetries<T>(route: UpstreamRoute, cancel: CancelSignal, attempt: (attemptNumber: number) => Promise<T>): Promise<T> {
  return withRetries(attempt, route.retry, cancel);
}

/** withRouteRetries after its first attempt failed with `error`, for a caller that ran that attempt itself. */
export function retriesAfter<T>(route: UpstreamRoute, cancel: CancelSignal, error: unknown, attempt: (attemptNumber: number) => Promise<T>): Promise<T> {
  return retryAfter(error, attempt, route.retry, cancel);
}

/** The error each relay limit answers with (README "Relay limits"). */
const limitErrors = { answer_size: 'upstream_answer_too_large', deadline: 'upstream_deadline_exceeded' } as const satisfies Record<RelayLimit, ErrorName>;

/** An upstream call's failure as the client is answered. */
export function upstreamServiceError(error: unknown): ServiceError {
  if (!(error instanceof UpstreamFailure)) return ServiceError.from(error);
  const { exceeded } = error.details;
  if (exceeded) return new ServiceError(limitErrors[exceeded], error.message, { cause: error });
  if (error.unreachable) return new ServiceError('upstream_unreachable', error.message, { cause: error });
  // contract §2.3: relayed errors carry type api_error with the provider's own message and status.
  return new ServiceError('upstream_error', error.message, { status: error.details.status, code: error.details.code, upstreamBody: error.details.body, cause: error });
}
