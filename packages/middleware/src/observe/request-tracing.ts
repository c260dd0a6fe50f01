import type { IncomingHttpHeaders } from 'node:http';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace, type Span } from '@opentelemetry/api';
import type { RequestObservation } from './request-observation.js';

/**
 * Asked per span, not once at load: a tracer kept from module load would keep writing to a provider the
 * host has since replaced (`trace.disable()` then a new SDK), and the lookup is a map read.
 */
const tracer = () => trace.getTracer('tollgate');

/** The `gen_ai.system` value of each provider kind (OpenTelemetry GenAI semantic conventions). */
const genAiSystem: Record<string, string> = { openai: 'openai', anthropic: 'anthropic', gemini: 'gcp.gemini' };

/** The GenAI operation each endpoint performs. */
const genAiOperation: Record<string, string> = { '/v1/embeddings': 'embeddings' };

/**
 * Starts the request's server span as a child of the caller's `traceparent`, when one came (W3C trace
 * context through whatever propagator the host registered).
 */
export function startRequestSpan(method: string | undefined, endpoint: string, requestId: string, headers: IncomingHttpHeaders): Span {
  const parent = propagation.extract(ROOT_CONTEXT, headers);
  return tracer().startSpan(`${method ?? 'GET'} ${endpoint}`, { kind: SpanKind.SERVER, attributes: { 'http.request.method': method ?? 'GET', 'http.route': endpoint, 'tollgate.request_id': requestId } }, parent);
}

/** Closes the request span with what the request did. */
export function endRequestSpan(observation: RequestObservation, status: number): void {
  const span = observation.span;
  if (!span) return;
  span.setAttributes({
    'http.response.status_code': status,
    'tollgate.org': observation.org,
    'tollgate.key_id': observation.keyId,
    'tollgate.alias': observation.alias,
    'tollgate.reason': observation.reason,
    'gen_ai.usage.input_tokens': observation.inputTokens,
    'gen_ai.usage.output_tokens': observation.outputTokens,
  });
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: observation.reason });
  span.end();
}

/**
 * One upstream attempt as a client span under the request span; its context is injected into the
 * outgoing headers (`traceparent`), so the provider's side joins the same trace.
 */
export function startUpstreamSpan(observation: RequestObservation, provider: { name: string; kind: string }, model: string, alias: string, headers: Record<string, string>): Span | undefined {
  const parent = observation.span;
  if (!parent) return undefined;
  const operation = genAiOperation[observation.endpoint] ?? 'chat';
  const span = tracer().startSpan(
    `${operation} ${model}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'gen_ai.operation.name': operation,
        'gen_ai.system': genAiSystem[provider.kind] ?? provider.kind,
        'gen_ai.request.model': model,
        'tollgate.alias': alias,
        'tollgate.provider': provider.name,
        'tollgate.request_id': observation.requestId,
      },
    },
    trace.setSpan(context.active(), parent),
  );
  propagation.inject(trace.setSpan(ROOT_CONTEXT, span), headers);
  return span;
}

export function endUpstreamSpan(span: Span | undefined, outcome: { error?: unknown; inputTokens?: number; outputTokens?: number }): void {
  if (!span) return;
  if (outcome.error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error instanceof Error ? outcome.error.message : String(outcome.error) });
  if (outcome.inputTokens !== undefined) span.setAttribute('gen_ai.usage.input_tokens', outcome.inputTokens);
  if (outcome.outputTokens !== undefined) span.setAttribute('gen_ai.usage.output_tokens', outcome.outputTokens);
  span.end();
}

/**
 * `run` as one upstream attempt inside its client span (startUpstreamSpan), given a copy of the attempt's headers
 * that carries its traceparent (a route's provider headers are shared, never written to), and the span ended with
 * the attempt's usage or its error.
 *
 * @example
 * const answer = await inUpstreamSpan(observation, provider, 'gpt-4o', 'gpt', call.headers, (headers) => client.postJson({ ...call, headers }));
 */
export async function inUpstreamSpan<T>(
  observation: RequestObservation,
  provider: { name: string; kind: string },
  model: string,
  alias: string,
  headers: Readonly<Record<string, string>>,
  run: (traced: Record<string, string>) => Promise<T>,
  usage: () => { inputTokens?: number; outputTokens?: number } = noUsage,
): Promise<T> {
  const traced: Record<string, string> = Object.assign({}, headers);
  const span = startUpstreamSpan(observation, provider, model, alias, traced);
  try {
    const result = await run(traced);
    endUpstreamSpan(span, usage());
    return result;
  } catch (error) {
    endUpstreamSpan(span, { error });
    throw error;
  }
}

function noUsage(): { inputTokens?: number; outputTokens?: number } {
  return {};
}
