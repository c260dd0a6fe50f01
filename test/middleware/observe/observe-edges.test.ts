import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { SpanKind, context, propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { AccessLine } from '../../../packages/middleware/src/observe/access-line.js';
import { postJson, startGateway, type RunningGateway } from '../../support/gateway.js';
import { TEST_KEY, gatewayConfig, startStack } from '../gateway/gateway-fixture.js';
import { sample } from './prometheus-text.js';

const METRICS_TOKEN = 'tg-metrics-scrape-token-0123456789abcdef';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

describe('observability numbers', () => {
  let stack: Awaited<ReturnType<typeof startStack>>;
  let lines: AccessLine[];
  let observed: RunningGateway | undefined;
  afterEach(async () => {
    await observed?.close();
    observed = undefined;
    await stack?.close();
  });

  async function startObserved() {
    lines = [];
    stack = await startStack({ metrics: { path: '/metrics', auth: { bearer: METRICS_TOKEN } } });
    // same config, but with an access logger
    await stack.gateway.close();
    const gateway = await startGateway(gatewayConfig(stack, { metrics: { path: '/metrics', auth: { bearer: METRICS_TOKEN } } }), {
      logger: { info() {}, error() {}, access: (line: AccessLine) => void lines.push(line) },
    });
    observed = gateway;
    stack.gateway = gateway;
  }
  const scrape = async () => (await fetch(`${stack.gateway.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();

  it('does not count a JSON request whose client left before any answer as a 200', async () => {
    await startObserved();
    stack.openai.delay(300);
    const { port } = new URL(stack.gateway.url);
    const payload = JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'hello' }] });
    const socket = connect(Number(port), '127.0.0.1');
    let answered = false;
    socket.on('data', () => (answered = true));
    socket.write(`POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nauthorization: Bearer ${TEST_KEY}\r\ncontent-length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`);
    while (stack.openai.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    socket.destroy();
    while (lines.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(answered, false);
    const text = await scrape();
    assert.equal(sample(text, 'tollgate_requests_total', { endpoint: '/v1/chat/completions', alias: 'gpt', provider: 'openai', status: 200, reason: 'none' }), 0, 'no answer was sent: not a 200');
    assert.notEqual(lines[0]!.status, 200, 'the access line of a request that got no answer');
  });

  it('labels an idempotent replay with the alias it was for, not "none"', async () => {
    await startObserved();
    const body = { model: 'gpt', messages: [{ role: 'user', content: 'hello' }] };
    const headers = { authorization: `Bearer ${TEST_KEY}`, 'idempotency-key': 'replay-metrics' };
    await postJson(`${stack.gateway.url}/v1/chat/completions`, body, headers);
    const replay = await postJson(`${stack.gateway.url}/v1/chat/completions`, body, headers);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    const text = await scrape();
    assert.equal(sample(text, 'tollgate_requests_total', { endpoint: '/v1/chat/completions', alias: 'none', provider: 'none', status: 200, reason: 'none' }), 0, text.split('\n').filter((l) => l.startsWith('tollgate_requests_total')).join('\n'));
  });
});

describe('tracing of count_tokens', () => {
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

  it("continues the caller's trace into Anthropic's count endpoint, with a client span for the call", async () => {
    stack = await startStack({ tracing: true });
    const answer = await postJson(`${stack.gateway.url}/v1/messages/count_tokens`, { model: 'claude', messages: [{ role: 'user', content: 'count me' }] }, { 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01', traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01` });
    assert.equal(answer.status, 200, answer.text);
    while (!exporter.getFinishedSpans().some((span) => span.kind === SpanKind.SERVER)) await new Promise((resolve) => setImmediate(resolve));
    const upstream = stack.anthropic.requests.at(-1)!;
    assert.equal(upstream.path, '/v1/messages/count_tokens');
    const sent = upstream.headers.traceparent as string | undefined;
    assert.ok(sent?.startsWith(`00-${TRACE_ID}-`), `traceparent sent upstream: ${sent}`);
  });
});
