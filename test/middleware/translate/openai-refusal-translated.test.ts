import assert from 'node:assert/strict';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { sendJson } from '../../support/scripted-provider.js';
import { TEST_KEY, sendSse, startScriptedRoutes, type ScriptedRoutes } from '../../support/scripted-routes.js';

const REFUSAL = "I'm sorry, I can't help with that.";
const completion = { id: 'chatcmpl-refused', object: 'chat.completion', created: 1, model: 'gpt-4o-2024-08-06', choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: REFUSAL }, finish_reason: 'stop', logprobs: null }], usage: { prompt_tokens: 5, completion_tokens: 9, total_tokens: 14 } };
const chunk = (delta: object, finish: string | null = null) => ({ id: 'chatcmpl-refused', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-2024-08-06', choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] });
const chunks = [chunk({ role: 'assistant', content: null, refusal: '' }), chunk({ refusal: "I'm sorry, " }), chunk({ refusal: "I can't help with that." }), chunk({}, 'stop'), { ...chunk({}), choices: [], usage: completion.usage }];

/**
 * OpenAI answers a structured-output request it will not serve with `message.refusal` (content null), and
 * streams it as `delta.refusal`. A Messages or Responses client on an OpenAI route (e.g. `claude-sonnet`'s
 * fallback) gets an empty, normal-looking answer instead: the refusal is dropped. Anthropic would say
 * `stop_reason: "refusal"`; OpenAI's own Responses API sends a `refusal` content part.
 */
describe('an OpenAI refusal translated to Messages and Responses', () => {
  let stack: ScriptedRoutes;
  let openai: OpenAI;
  let anthropic: Anthropic;
  beforeEach(async () => {
    stack = await startScriptedRoutes();
    openai = new OpenAI({ baseURL: `${stack.gateway.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: stack.gateway.url, apiKey: TEST_KEY, maxRetries: 0 });
    stack.openai.set((_req, res, body) => (body.stream ? sendSse(res, chunks, { done: true }) : sendJson(res, 200, completion)));
  });
  afterEach(() => stack.close());

  it('messages.create(): stop_reason refusal, the refusal text kept', async () => {
    const message = await anthropic.messages.create({ model: 'gpt', max_tokens: 100, messages: [{ role: 'user', content: 'x' }] });
    assert.equal(message.stop_reason, 'refusal'); // before the fix: end_turn, content []
    assert.deepEqual(message.content, [{ type: 'text', text: REFUSAL }]);
  });

  it('messages.stream(): finalMessage() has stop_reason refusal and the refusal text', async () => {
    const message = await anthropic.messages.stream({ model: 'gpt', max_tokens: 100, messages: [{ role: 'user', content: 'x' }] }).finalMessage();
    assert.equal(message.stop_reason, 'refusal');
    assert.deepEqual(message.content, [{ type: 'text', text: REFUSAL }]);
  });

  it('responses.create(): a message item with a refusal content part', async () => {
    const response = await openai.responses.create({ model: 'gpt', input: 'x' });
    const message = response.output.find((item) => item.type === 'message') as OpenAI.Responses.ResponseOutputMessage | undefined;
    assert.deepEqual(message?.content, [{ type: 'refusal', refusal: REFUSAL }]); // before the fix: output []
  });

  it('responses.stream(): finalResponse() has the refusal content part', async () => {
    const response = await openai.responses.stream({ model: 'gpt', input: 'x' }).finalResponse();
    const message = response.output.find((item) => item.type === 'message') as OpenAI.Responses.ResponseOutputMessage | undefined;
    assert.deepEqual(message?.content.map((part) => ({ type: part.type, refusal: (part as { refusal?: string }).refusal })), [{ type: 'refusal', refusal: REFUSAL }]);
  });
});
