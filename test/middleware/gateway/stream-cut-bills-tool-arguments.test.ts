import assert from 'node:assert/strict';
import { readSse } from '../../support/gateway.js';
import { sendEvents } from '../../support/scripted-provider.js';
import { startScriptedRoutes, TEST_KEY, type ScriptedRoutes } from '../../support/scripted-routes.js';

/**
 * A chat (or Responses) client on an Anthropic route whose stream is cut in the middle of a tool call: the tool
 * call's arguments were delivered, so they are billed (README "What is billed": without a final report, the
 * tokenizer's count of the output actually delivered; tool-call arguments are output, as on the Gemini and
 * Bedrock routes and on the native Anthropic relay).
 */
describe('tool-call arguments relayed from an Anthropic stream that breaks are billed', function () {
  this.timeout(20_000);
  let routes: ScriptedRoutes;
  afterEach(async () => routes?.close());

  // ~650 tokens of tool-call arguments, streamed as input_json_delta fragments.
  const args = JSON.stringify({ code: 'function add(a, b) { return a + b; } '.repeat(50) });
  const fragments = Array.from({ length: 10 }, (_, i) => args.slice(i * Math.ceil(args.length / 10), (i + 1) * Math.ceil(args.length / 10)));

  async function cutMidToolCall() {
    routes = await startScriptedRoutes();
    routes.anthropic.set((_req, res) => {
      sendEvents(
        res,
        [
          { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } },
          { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'write', input: {} } },
          ...fragments.map((partial_json) => ({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json } })),
        ],
        { end: false },
      );
      // The provider's connection drops before message_delta (its final usage) and message_stop.
      setTimeout(() => res.destroy(), 50);
    });
  }

  const tools = [{ type: 'function', function: { name: 'write', parameters: { type: 'object' } } }];
  for (const [path, body, delivered] of [
    ['/v1/chat/completions', { model: 'claude', max_tokens: 4000, stream: true, messages: [{ role: 'user', content: 'write it' }], tools }, (data: string) => (data.startsWith('{') ? (JSON.parse(data).choices?.[0]?.delta?.tool_calls?.[0]?.function?.arguments ?? '') : '')],
    ['/v1/responses', { model: 'claude', max_output_tokens: 4000, stream: true, input: 'write it', tools: [{ type: 'function', name: 'write', parameters: { type: 'object' } }] }, (data: string) => (data.includes('function_call_arguments.delta') ? JSON.parse(data).delta : '')],
  ] as const) {
    it(`${path}: the delivered arguments are billed as output tokens`, async () => {
      await cutMidToolCall();
      const response = await fetch(`${routes.gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` }, body: JSON.stringify(body) });
      const { events, broke } = await readSse(response);
      assert.equal(response.status, 200);
      assert.equal(broke, true, 'the stream broke (the provider dropped)');
      const relayed = events.map((event) => delivered(event.data)).join('');
      assert.equal(relayed, args, 'the whole arguments reached the client');
      const usage = await routes.gateway.gate.admin.usage('acme');
      assert.equal(usage.inFlight, 0);
      // The arguments are ~650 o200k tokens; the provider reported only message_start's output_tokens: 1.
      assert.ok(usage.outputTokens >= 300, `~650 tokens of tool-call arguments were delivered, ${usage.outputTokens} output tokens billed`);
    });
  }
});
