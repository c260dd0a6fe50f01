import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { sendEvents, sendJson } from '../../support/scripted-provider.js';
import { TEST_KEY, startScriptedRoutes, type ScriptedRoutes } from '../../support/scripted-routes.js';

const message = { id: 'msg_cw', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [{ type: 'text', text: 'The list goes on: a, b, c' }], stop_reason: 'model_context_window_exceeded', stop_sequence: null, usage: { input_tokens: 199_000, output_tokens: 1000 } };
const events = [
  { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { input_tokens: 199_000, output_tokens: 1 } } },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'The list goes on: a, b, c' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'message_delta', delta: { stop_reason: 'model_context_window_exceeded', stop_sequence: null }, usage: { output_tokens: 1000 } },
  { type: 'message_stop' },
];

/**
 * Anthropic ends a turn cut by the context window with `stop_reason: "model_context_window_exceeded"` (default on
 * Sonnet 4.5 and later). Tollgate maps it to `finish_reason: "stop"` (the default branch), so a chat client sees
 * a truncated answer as complete and a Responses client gets `status: "completed"`. Bedrock's mapping
 * (providers/bedrock/map-stop-reason.ts) already makes the same reason `length`.
 */
describe('Anthropic model_context_window_exceeded on translated routes', () => {
  let stack: ScriptedRoutes;
  let openai: OpenAI;
  beforeEach(async () => {
    stack = await startScriptedRoutes();
    openai = new OpenAI({ baseURL: `${stack.gateway.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
    stack.anthropic.set((_req, res, body) => (body.stream ? sendEvents(res, events) : sendJson(res, 200, message)));
  });
  afterEach(() => stack.close());

  it('chat completion: finish_reason length', async () => {
    const completion = await openai.chat.completions.create({ model: 'claude', messages: [{ role: 'user', content: 'x' }] });
    assert.equal(completion.choices[0]!.finish_reason, 'length');
  });

  it('chat stream: finalChatCompletion() finish_reason length', async () => {
    const completion = await openai.chat.completions.stream({ model: 'claude', messages: [{ role: 'user', content: 'x' }] }).finalChatCompletion();
    assert.equal(completion.choices[0]!.finish_reason, 'length');
  });

  it('responses stream: finalResponse() is incomplete (max_output_tokens), not completed', async () => {
    const response = await openai.responses.stream({ model: 'claude', input: 'x' }).finalResponse();
    assert.equal(response.status, 'incomplete');
  });
});
