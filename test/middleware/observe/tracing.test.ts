import assert from 'node:assert/strict';
import { SpanKind, context, propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { TEST_KEY, startStack } from '../gateway/gateway-fixture.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

/** Spans end just after the answer's last byte left: wait (on the event loop, no timer) for the request's server span. */
async function finishedSpans(exporter: InMemorySpanExporter) {
  while (!exporter.getFinishedSpans().some((span) => span.kind === SpanKind.SERVER)) await new Promise((resolve) => setImmediate(resolve));
  return exporter.getFinishedSpans();
}

describe('OpenTelemetry traces', () => {
  let stack: Awaited<ReturnType<typeof startStack>>;
  let exporter: InMemorySpanExporter;
  beforeEach(() => {
    exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  });
  afterEach(async () => {
    await stack?.close();
    trace.disable();
    propagation.disable();
    context.disable();
  });

  it('makes a server span per request, continuing the caller’s traceparent, with an upstream client span carrying the GenAI attributes', async () => {
    stack = await startStack({ tracing: true });
    const openai = new OpenAI({ baseURL: `${stack.gateway.url}/v1`, apiKey: TEST_KEY, maxRetries: 0, defaultHeaders: { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01` } });
    const answer = await openai.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'hello' }] });

    const spans = await finishedSpans(exporter);
    const server = spans.find((span) => span.kind === SpanKind.SERVER)!;
    const client = spans.find((span) => span.kind === SpanKind.CLIENT && span.attributes['tollgate.provider'] !== undefined)!;
    assert.equal(server.name, 'POST /v1/chat/completions');
    assert.equal(server.spanContext().traceId, TRACE_ID);
    assert.equal(server.parentSpanContext?.spanId, CALLER_SPAN);
    assert.equal(server.attributes['tollgate.request_id'], answer._request_id);
    assert.equal(server.attributes['http.response.status_code'], 200);
    assert.equal(server.attributes['gen_ai.usage.input_tokens'], answer.usage!.prompt_tokens);
    assert.equal(server.attributes['gen_ai.usage.output_tokens'], answer.usage!.completion_tokens);
    assert.deepEqual(server.events.map((event) => event.name), ['resolved', 'admitted', 'upstream', 'settled']);

    assert.equal(client.parentSpanContext?.spanId, server.spanContext().spanId);
    assert.equal(client.spanContext().traceId, TRACE_ID);
    assert.equal(client.name, 'chat gpt-4o');
    assert.equal(client.attributes['gen_ai.system'], 'openai');
    assert.equal(client.attributes['gen_ai.request.model'], 'gpt-4o');
    assert.equal(client.attributes['gen_ai.operation.name'], 'chat');
    assert.equal(client.attributes['gen_ai.usage.input_tokens'], answer.usage!.prompt_tokens);
    assert.equal(client.attributes['gen_ai.usage.output_tokens'], answer.usage!.completion_tokens);

    // The provider sees the same trace, as a child of the client span.
    const upstreamTraceparent = stack.openai.requests.at(-1)!.headers.traceparent;
    assert.equal(upstreamTraceparent, `00-${TRACE_ID}-${client.spanContext().spanId}-01`);
  });

  it('traces each retry as its own client span, each forwarding its own traceparent', async () => {
    stack = await startStack({ tracing: true, organizations: { acme: { wallet: 100 } } });
    stack.anthropic.failNext({ status: 529, times: 1 });
    const anthropic = new Anthropic({ baseURL: stack.gateway.url, apiKey: TEST_KEY, maxRetries: 0 });
    await anthropic.messages.create({ model: 'claude', max_tokens: 32, messages: [{ role: 'user', content: 'hi' }] });
    // The Anthropic SDK traces its own call too: keep Tollgate's upstream spans.
    const clients = (await finishedSpans(exporter)).filter((span) => span.kind === SpanKind.CLIENT && span.attributes['tollgate.provider'] !== undefined);
    assert.equal(clients.length, 2);
    assert.deepEqual(clients.map((span) => span.status.code), [2, 0]);
    assert.equal(clients[1]!.attributes['gen_ai.system'], 'anthropic');
    // A new trace when the caller sent none; each attempt forwarded its own span.
    const sent = stack.anthropic.requests.map((request) => request.headers.traceparent);
    assert.deepEqual(sent, clients.map((span) => `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`));
  });

  it('sends no traceparent upstream and makes no span when tracing is off', async () => {
    stack = await startStack();
    const openai = new OpenAI({ baseURL: `${stack.gateway.url}/v1`, apiKey: TEST_KEY, maxRetries: 0, defaultHeaders: { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01` } });
    await openai.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'hello' }] });
    assert.equal(exporter.getFinishedSpans().length, 0);
    assert.equal(stack.openai.requests.at(-1)!.headers.traceparent, undefined);
  });
});
