import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { readSse } from '../../support/gateway.js';
import { sendEvents } from '../../support/scripted-provider.js';
import { startScriptedRoutes, TEST_KEY, type ScriptedRoutes } from '../../support/scripted-routes.js';

/**
 * A faulty provider (or a proxy that splices two answers) that sends more output after its stream's last event
 * (`[DONE]`, `message_stop`, `response.completed`): nothing after that event belongs to the answer
 * (codec.ts StreamTranslator.ended, README "Streams"). The client must not get text after the finish_reason /
 * message_stop / response.completed it was told the answer ended with — text the provider's usage never counted,
 * so it would be served unbilled.
 */
describe('output a provider sends after its last event is not relayed', function () {
  this.timeout(20_000);
  let routes: ScriptedRoutes;
  afterEach(async () => routes?.close());
  const EXTRA = 'SMUGGLED AFTER THE END';

  function openaiAfterDone(res: ServerResponse): void {
    const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o' };
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: 'Hello' }, finish_reason: null }] })}\n\n`);
    res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`);
    res.write(`data: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } })}\n\n`);
    res.write('data: [DONE]\n\n');
    res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { content: EXTRA }, finish_reason: null }] })}\n\n`);
    res.end();
  }

  function anthropicAfterStop(res: ServerResponse): void {
    sendEvents(res, [
      { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 5, output_tokens: 1 } } },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 1 } },
      { type: 'message_stop' },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: EXTRA } },
    ]);
  }

  function openaiGarbageAfterDone(res: ServerResponse): void {
    const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o' };
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: 'Hello' }, finish_reason: null }] })}\n\n`);
    res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`);
    res.write(`data: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } })}\n\n`);
    res.write('data: [DONE]\n\n');
    // A proxy's trailer after the provider's last event: not JSON, and not part of the answer.
    res.end('data: <html>upstream proxy closed</html>\n\n');
  }

  it('a finished chat stream followed by a garbage event after [DONE] still ends normally for the client', async () => {
    routes = await startScriptedRoutes();
    routes.openai.set((_req, res) => openaiGarbageAfterDone(res));
    const response = await fetch(`${routes.gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` }, body: JSON.stringify({ model: 'gpt', stream: true, messages: [{ role: 'user', content: 'hi' }] }) });
    assert.equal(response.status, 200);
    const { events, broke } = await readSse(response);
    assert.equal(broke, false, 'a complete answer was cut as a failed stream');
    assert.equal(events.at(-1)?.data, '[DONE]');
    const usage = await routes.gateway.gate.admin.usage('acme');
    assert.deepEqual([usage.requests, usage.outputTokens, usage.inFlight], [1, 1, 0]);
  });

  for (const [name, path, model, provider, body] of [
    ['chat completions on an OpenAI route ([DONE])', '/v1/chat/completions', 'gpt', openaiAfterDone, {}],
    ['messages on an OpenAI route ([DONE])', '/v1/messages', 'gpt', openaiAfterDone, { max_tokens: 10 }],
    ['messages on an Anthropic route (message_stop)', '/v1/messages', 'claude', anthropicAfterStop, { max_tokens: 10 }],
    ['chat completions on an Anthropic route (message_stop)', '/v1/chat/completions', 'claude', anthropicAfterStop, {}],
  ] as const) {
    it(`${name}: the client's stream ends at the provider's last event, without the text after it`, async () => {
      routes = await startScriptedRoutes();
      (model === 'gpt' ? routes.openai : routes.anthropic).set((_req, res) => provider(res));
      const response = await fetch(`${routes.gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` }, body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'hi' }], ...body }) });
      assert.equal(response.status, 200);
      const { events, broke } = await readSse(response);
      assert.equal(broke, false);
      assert.ok(events.some((event) => event.data.includes('Hello')));
      const smuggled = events.filter((event) => event.data.includes(EXTRA));
      assert.deepEqual(smuggled, [], 'text after the provider\'s last event reached the client');
      const usage = await routes.gateway.gate.admin.usage('acme');
      assert.deepEqual([usage.requests, usage.outputTokens, usage.inFlight], [1, 1, 0]);
    });
  }
});
