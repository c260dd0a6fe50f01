import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { readSse } from '../../support/gateway.js';
import { bedrockFrame, startScriptedRoutes, TEST_KEY, type ScriptedRoutes } from '../../support/scripted-routes.js';

/**
 * Bedrock's ConverseStream ends with `metadata` (after `messageStop`): the gateway sends the finish_reason chunk
 * when it comes (README "AWS Bedrock": "the finish_reason chunk is sent when metadata closes the stream"). A provider
 * (or a proxy before it) that keeps the connection open after that last event must not hold the client, and its
 * concurrency slot, until the provider's idle timeout and then break a finished stream — as README "Streams" promises
 * for `[DONE]`, `response.completed` and `message_stop`.
 */
describe('a Bedrock stream whose provider stays open after its last event (metadata)', function () {
  this.timeout(20_000);
  let routes: ScriptedRoutes;
  afterEach(async () => routes?.close());

  function answerThenHoldOpen(res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
    res.write(bedrockFrame('messageStart', { role: 'assistant' }));
    res.write(bedrockFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'hi there' } }));
    res.write(bedrockFrame('contentBlockStop', { contentBlockIndex: 0 }));
    res.write(bedrockFrame('messageStop', { stopReason: 'end_turn' }));
    res.write(bedrockFrame('metadata', { usage: { inputTokens: 4, outputTokens: 2, totalTokens: 6 }, metrics: { latencyMs: 1 } }));
    // ...and the connection stays open (no terminating chunk).
  }

  for (const [name, path, body, lastEvent] of [
    ['chat completions', '/v1/chat/completions', { model: 'rock', stream: true, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }, (data: string) => data === '[DONE]'],
    ['messages', '/v1/messages', { model: 'rock', stream: true, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }, (data: string) => data.includes('"message_stop"')],
    ['responses', '/v1/responses', { model: 'rock', stream: true, max_output_tokens: 10, input: 'hi' }, (data: string) => data.includes('"response.completed"')],
  ] as const) {
    it(`${name}: ends normally within 4 s, billed once, its slot freed`, async () => {
      routes = await startScriptedRoutes();
      routes.bedrock.set((_req, res) => answerThenHoldOpen(res));
      const started = Date.now();
      const response = await fetch(`${routes.gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` }, body: JSON.stringify(body), signal: AbortSignal.timeout(4_000) });
      assert.equal(response.status, 200);
      const { events, broke } = await readSse(response);
      assert.equal(broke, false, `the stream did not end within 4 s (${Date.now() - started} ms)`);
      assert.ok(lastEvent(events.at(-1)!.data), `last event: ${events.at(-1)?.data}`);
      const usage = await routes.gateway.gate.admin.usage('acme');
      assert.deepEqual([usage.requests, usage.inputTokens, usage.outputTokens, usage.inFlight], [1, 4, 2, 0]);
    });
  }
});
