import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { readSse } from '../../support/gateway.js';
import { TEST_KEY, sendSse, startScriptedRoutes, type ScriptedRoutes } from '../../support/scripted-routes.js';

const chunk = (index: number, delta: object, finish: string | null = null) => ({ id: 'chatcmpl-n2', object: 'chat.completion.chunk', created: 5, model: 'gpt-4o-2024-08-06', choices: [{ index, delta, finish_reason: finish, logprobs: null }] });

/**
 * With n=2 each choice finishes with its own finish_reason chunk. An upstream stream that ends (cleanly, no
 * `[DONE]`) after choice 0 finished but while choice 1 is mid-sentence is a failed generation for choice 1:
 * the client must see an abnormal end (contract §6.1 rule 2, DESIGN "a failed stream is never closed with a
 * normal finish"), as the Gemini translator already does per candidate. Tollgate appends `[DONE]` instead.
 */
describe('an n=2 chat stream cut while one choice is unfinished', () => {
  let stack: ScriptedRoutes;
  beforeEach(async () => {
    stack = await startScriptedRoutes();
    stack.openai.set((_req, res) => {
      sendSse(res, [chunk(0, { role: 'assistant', content: 'Hel' }), chunk(1, { role: 'assistant', content: 'Wor' }), chunk(0, { content: 'lo.' }), chunk(0, {}, 'stop'), chunk(1, { content: 'ld, and then' })], { end: false });
      setTimeout(() => res.end(), 20); // the upstream body ends: no finish for choice 1, no [DONE]
    });
  });
  afterEach(() => stack.close());

  it('ends abnormally: no [DONE] after a stream whose choice 1 never finished', async () => {
    const response = await fetch(`${stack.gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` }, body: JSON.stringify({ model: 'gpt', n: 2, stream: true, messages: [{ role: 'user', content: 'x' }] }) });
    assert.equal(response.status, 200);
    const { events, broke } = await readSse(response);
    assert.ok(events.some((e) => e.data.includes('ld, and then')));
    assert.equal(events.at(-1)!.data === '[DONE]', false, 'a [DONE] closes a stream whose choice 1 was cut');
    assert.equal(broke, true);
  });

  it('the openai SDK sees a broken stream, not a normal end with a truncated choice', async () => {
    const openai = new OpenAI({ baseURL: `${stack.gateway.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
    const stream = await openai.chat.completions.create({ model: 'gpt', n: 2, stream: true, messages: [{ role: 'user', content: 'x' }] });
    const texts = ['', ''];
    await assert.rejects(async () => {
      for await (const c of stream) for (const choice of c.choices) texts[choice.index] += choice.delta.content ?? '';
    });
    assert.deepEqual(texts, ['Hello.', 'World, and then']);
  });
});
