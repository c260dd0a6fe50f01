import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { readSse, startGateway, type RunningGateway } from '../../support/gateway.js';
import { startScripted } from '../../support/scripted-provider.js';
import { TEST_KEY, startScriptedRoutes, type ScriptedRoutes } from '../../support/scripted-routes.js';

const KEY = 'tg-held-open-key-0123456789abcdefXYZ';

/** A provider (or a proxy before it) that sends its stream's last event, then keeps the connection open with comments. */
function holdOpen(res: ServerResponse): void {
  const timer = setInterval(() => res.write(': keep-alive\n\n'), 100);
  res.on('close', () => clearInterval(timer));
}

/**
 * A stream whose provider sent its last event (`[DONE]`, `response.completed`) but keeps its connection open ends
 * for the client within about a second (model-call.ts AFTER_LAST_EVENT_MS), normally and billed once, instead of
 * hanging until the attempt's deadline (30 minutes by default) and then ending abnormally.
 */
describe('a stream whose provider stays open after its last event', function () {
  this.timeout(20_000);
  let gateway: RunningGateway;
  let provider: Awaited<ReturnType<typeof startScripted>>;
  before(async () => {
    provider = await startScripted((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (req.url!.endsWith('/responses')) {
        const response = { id: 'resp_1', object: 'response', status: 'completed', model: 'gpt-4o', output: [{ type: 'message', id: 'msg_1', role: 'assistant', content: [{ type: 'output_text', text: 'hi there' }] }], usage: { input_tokens: 4, output_tokens: 2, total_tokens: 6 } };
        res.write(`event: response.created\ndata: ${JSON.stringify({ type: 'response.created', response: { ...response, status: 'in_progress', output: [] } })}\n\n`);
        res.write(`event: response.output_text.delta\ndata: ${JSON.stringify({ type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'hi there' })}\n\n`);
        res.write(`event: response.completed\ndata: ${JSON.stringify({ type: 'response.completed', response })}\n\n`);
      } else {
        const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o' };
        res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: 'hi there' }, finish_reason: null }] })}\n\n`);
        res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`);
        res.write(`data: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: 4, completion_tokens: 2, total_tokens: 6 } })}\n\n`);
        res.write('data: [DONE]\n\n');
      }
      holdOpen(res);
    });
    gateway = await startGateway({
      defaultCatalog: false,
      keys: [{ key: KEY, org: 'acme' }],
      organizations: { acme: { wallet: 100 } },
      providers: { openai: { kind: 'openai', baseUrl: provider.baseUrl, apiKey: 'sk-held-open' } },
      models: { gpt: { routes: [{ provider: 'openai', model: 'gpt-4o' }], price: { input: 1, output: 1 } } },
    });
  });
  after(async () => {
    await gateway.close();
    await provider.close();
  });

  for (const [name, path, body, lastEvent] of [
    ['chat completions ([DONE])', '/v1/chat/completions', { model: 'gpt', stream: true, messages: [{ role: 'user', content: 'hi' }] }, (data: string) => data === '[DONE]'],
    ['responses (response.completed)', '/v1/responses', { model: 'gpt', stream: true, input: 'hi' }, (data: string) => data.includes('"response.completed"')],
    ['messages through chat (message_stop)', '/v1/messages', { model: 'gpt', stream: true, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }, (data: string) => data.includes('"message_stop"')],
  ] as const) {
    it(`${name}: ends normally within 3 s, billed once, its slot freed`, async () => {
      const before = await gateway.gate.admin.usage('acme');
      const started = Date.now();
      const response = await fetch(`${gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, body: JSON.stringify(body), signal: AbortSignal.timeout(3_000) });
      const { events, broke } = await readSse(response);
      assert.equal(response.status, 200);
      assert.equal(broke, false);
      assert.ok(lastEvent(events.at(-1)!.data), `last event: ${events.at(-1)!.data}`);
      assert.ok(Date.now() - started < 3_000);
      const after = await gateway.gate.admin.usage('acme');
      assert.deepEqual([after.requests - before.requests, after.outputTokens - before.outputTokens, after.inFlight], [1, 2, 0]);
    });
  }
});

/**
 * The same for streams whose provider sends no end event of its own: an OpenAI-compatible server that omits `[DONE]`
 * (its usage chunk, which Tollgate always asks for, follows the last finish_reason) and Gemini (its stream ends with
 * its connection; the chunk with the finishReason is its last). They hung until the idle timeout (`timeoutMs`, or
 * the attempt's 30-minute deadline while keep-alive comments came), their answer complete.
 */
describe('a stream without an end event whose provider stays open after its last chunk', function () {
  this.timeout(20_000);
  let routes: ScriptedRoutes;
  before(async () => {
    routes = await startScriptedRoutes();
    routes.openai.set((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o' };
      res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: 'hi there' }, finish_reason: null }] })}\n\n`);
      res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`);
      res.write(`data: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: 4, completion_tokens: 2, total_tokens: 6 } })}\n\n`);
      holdOpen(res);
    });
    routes.gemini.set((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: 'hi ' }] }, index: 0 }], usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 1 } })}\n\n`);
      res.write(`data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: 'there' }] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 2, totalTokenCount: 6 } })}\n\n`);
      holdOpen(res);
    });
  });
  after(() => routes.close());

  for (const model of ['gpt', 'gem']) {
    for (const [name, path, lastEvent] of [
      ['chat completions', '/v1/chat/completions', (data: string) => data === '[DONE]'],
      ['responses', '/v1/responses', (data: string) => data.includes('"response.completed"')],
      ['messages', '/v1/messages', (data: string) => data.includes('"message_stop"')],
    ] as const) {
      it(`${model}, ${name}: ends normally within 3 s with the whole answer, billed once by the provider's usage, its slot freed`, async () => {
        const before = await routes.gateway.gate.admin.usage('acme');
        const started = Date.now();
        const body = { model, stream: true, max_tokens: 10, ...(path === '/v1/responses' ? { input: 'hi' } : { messages: [{ role: 'user', content: 'hi' }] }) };
        const response = await fetch(`${routes.gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` }, body: JSON.stringify(body), signal: AbortSignal.timeout(3_000) });
        const { events, broke } = await readSse(response);
        assert.equal(response.status, 200);
        assert.equal(broke, false);
        assert.ok(lastEvent(events.at(-1)!.data), `last event: ${events.at(-1)!.data}`);
        assert.ok(events.map((event) => event.data).join('').includes('there'));
        assert.ok(Date.now() - started < 3_000);
        const after = await routes.gateway.gate.admin.usage('acme');
        assert.deepEqual([after.requests - before.requests, after.inputTokens - before.inputTokens, after.outputTokens - before.outputTokens, after.inFlight], [1, 4, 2, 0]);
      });
    }
  }
});
