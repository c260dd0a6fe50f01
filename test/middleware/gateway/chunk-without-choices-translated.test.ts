import assert from 'node:assert/strict';
import { readSse } from '../../support/gateway.js';
import { sendSse, startScriptedRoutes, TEST_KEY, type ScriptedRoutes } from '../../support/scripted-routes.js';

/**
 * An OpenAI-compatible server whose stream-usage chunk carries no `choices` (or `choices: null`), or whose finish
 * chunk's choice has no `delta` (or `delta: null`): the chat relay takes them (upstream-events.ts: both are nullish),
 * and so must the translated `/v1/messages` and `/v1/responses` streams over the same route. They broke instead: the whole answer was generated and billed, and the client got a
 * stream cut without message_stop / response.completed (with the last buffered events lost), i.e. a failed generation.
 */
describe('a stream chunk without choices, or a choice without delta, on an OpenAI-kind route', function () {
  this.timeout(20_000);
  let routes: ScriptedRoutes;
  afterEach(async () => routes?.close());
  const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o' };

  const usage = { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 };
  const finish = { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] };
  for (const [shape, finishChunk, usageChunk] of [
    ['a usage chunk with no choices field', finish, { ...base, usage }],
    ['a usage chunk with choices: null', finish, { ...base, choices: null, usage }],
    ['a finish chunk whose choice has delta: null', { ...base, choices: [{ index: 0, delta: null, finish_reason: 'stop' }] }, { ...base, choices: [], usage }],
    ['a finish chunk whose choice has no delta', { ...base, choices: [{ index: 0, finish_reason: 'stop' }] }, { ...base, choices: [], usage }],
  ] as const) {
    for (const [path, body, lastEvent] of [
      ['/v1/messages', { model: 'gpt', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'hi' }] }, (data: string) => data.includes('"message_stop"')],
      ['/v1/responses', { model: 'gpt', stream: true, input: 'hi' }, (data: string) => data.includes('"response.completed"')],
    ] as const) {
      it(`${path} with ${shape}: the stream ends normally with the answer and its usage`, async () => {
        routes = await startScriptedRoutes();
        routes.openai.set((_req, res) =>
          sendSse(res, [{ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: 'Hello there' }, finish_reason: null }] }, finishChunk, usageChunk], { done: true }),
        );
        const response = await fetch(`${routes.gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` }, body: JSON.stringify(body) });
        assert.equal(response.status, 200);
        const { events, broke } = await readSse(response);
        assert.equal(broke, false, 'the stream broke');
        assert.ok(events.some((event) => event.data.includes('Hello there')), 'the answer reached the client');
        assert.ok(lastEvent(events.at(-1)?.data ?? ''), `last event: ${events.at(-1)?.data}`);
        const usage = await routes.gateway.gate.admin.usage('acme');
        assert.deepEqual([usage.requests, usage.inputTokens, usage.outputTokens, usage.inFlight], [1, 5, 2, 0]);
      });
    }
  }
});
