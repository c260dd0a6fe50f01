import type { ProviderConfig } from './provider-settings.js';
import type { Codec, RouteTarget } from './codec.js';
import type { ChatOutputLimitField, PrepareCall, PreparedRequest, ProviderDefinition, StreamFraming, TokenCounter } from './provider-definition.js';
import { definitionOf } from './registry.js';

/**
 * A codec's request for a route, as its provider puts it on the wire (`ProviderDefinition.prepare`):
 * URL, complete headers, body bytes.
 *
 * @example
 * const { origin, path, headers, body } = prepareCall(codec, target, adaptedBody, req.headers, false);
 */
export function prepareCall(codec: Codec, target: RouteTarget, body: Record<string, unknown>, clientHeaders: Record<string, string | string[] | undefined>, stream: boolean): PreparedRequest {
  const call = (stream ? target.calls?.stream : target.calls?.json) ?? prepareRoute(codec, target, stream);
  return call(codec.request(body, target, clientHeaders), clientHeaders);
}

/** A route's call for one direction (a whole answer, or a stream), prepared once with its plan. */
export function prepareRoute(codec: Codec, target: RouteTarget, stream: boolean): PrepareCall {
  return definitionOf(target.provider.kind).prepare(target.provider, codec.upstreamPath(target, stream));
}

/** The provider's error-body reader, for the upstream client. */
export function parseErrorOf(provider: ProviderConfig): ProviderDefinition['parseError'] {
  return definitionOf(provider.kind).parseError;
}

/** How the provider frames its streams (SSE, or its own decoder). */
export function framingOf(provider: ProviderConfig): StreamFraming {
  return definitionOf(provider.kind).framing;
}

/** Where this deployment's chat bodies put an output budget, when its provider leaves that to the deployment. */
export function chatOutputLimitFieldOf(provider: ProviderConfig): ChatOutputLimitField | undefined {
  return definitionOf(provider.kind).chatOutputLimitField?.(provider);
}

/** A token count request (`TokenCounter`) for a route's upstream model, as its provider puts it on the wire. */
export function prepareCount(provider: ProviderConfig, model: string, counter: TokenCounter, body: Record<string, unknown>, clientHeaders: Record<string, string | string[] | undefined>): PreparedRequest {
  return definitionOf(provider.kind).prepare(provider, counter.path)(counter.request(body, model), clientHeaders);
}
