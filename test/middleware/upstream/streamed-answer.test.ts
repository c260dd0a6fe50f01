import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startStack, TEST_KEY } from '../gateway/gateway-fixture.js';
import { postJson } from '../../support/gateway.js';

type Stack = Awaited<ReturnType<typeof startStack>>;

const chunk = (delta: object, finish: string | null, usage?: object) => `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: usage ? [] : [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) })}\n\n`;
/** A whole stream, sent in the same write as its headers: undici hands its events over before the head's caller resumes. */
const WHOLE_STREAM = chunk({ role: 'assistant', content: 'Hello' }, null) + chunk({ content: ' at once' }, null) + chunk({}, 'stop') + chunk({}, null, { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 }) + 'data: [DONE]\n\n';

describe('a streamed upstream answer pushed to the client (issue 19: heap per open stream)', () => {
  let stack: Stack;
  afterEach(async () => {
    await stack?.close();
  });

  it('relays every event of a stream that arrives whole with its headers, and bills its reported usage', async () => {
    stack = await startStack();
    stack.openai.answerRawNext({ status: 200, contentType: 'text/event-stream', body: WHOLE_STREAM });
    const openai = new OpenAI({ baseURL: `${stack.gateway.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
    let text = '';
    for await (const part of await openai.chat.completions.create({ model: 'gpt', stream: true, messages: [{ role: 'user', content: 'hi' }] })) text += part.choices[0]?.delta.content ?? '';
    assert.equal(text, 'Hello at once');
    const usage = await stack.gateway.gate.admin.usage('acme');
    assert.deepEqual([usage.requests, usage.inputTokens, usage.outputTokens, usage.inFlight], [1, 5, 3, 0]);
  });

  it('answers a stream refused with a long error body with the provider status and the start of its message, reading at most relay.maxAnswerBytes', async () => {
    stack = await startStack({ relay: { maxAnswerBytes: 1_024 } });
    const message = `quota exceeded ${'x'.repeat(50_000)}`;
    stack.openai.answerRawNext({ status: 429, contentType: 'application/json', body: JSON.stringify({ error: { message, type: 'rate_limit' } }), times: 3 });
    const answer = await postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'gpt', stream: true, messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${TEST_KEY}` });
    assert.equal(answer.status, 429);
    // Cut at 1,024 bytes the body is no JSON: its text is the message, at most 500 characters of it.
    assert.match(answer.body.error.message, /^\{"error":\{"message":"quota exceeded x+$/);
    assert.ok(answer.body.error.message.length <= 500, `message of ${answer.body.error.message.length} characters`);
    assert.equal((await stack.gateway.gate.admin.usage('acme')).inFlight, 0);
  });

  for (const events of [1, 3]) {
    it(`serves a stream whose provider closed its connection right after its head and ${events} event(s), billed once, its slot freed`, async () => {
      stack = await startStack();
      const first = [chunk({ role: 'assistant', content: 'Hel' }, null), chunk({ content: 'lo' }, null), chunk({ content: ' again' }, null)].slice(0, events).join('');
      stack.openai.answerRawNext({ status: 200, contentType: 'text/event-stream', body: first, closeShort: true });
      const response = await fetch(`${stack.gateway.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt', stream: true, messages: [{ role: 'user', content: 'hi' }] }) });
      const text = await response.text().catch(() => undefined);
      // Either the provider died before any client byte (retried: the next answer is whole), or the client got
      // the events relayed and an abnormal end: never a normal end after the broken answer's events.
      if (text !== undefined) assert.ok(/data: \[DONE\]/.test(text) ? !text.includes('"Hel"') : !text.includes('finish_reason":"stop'), text);
      const usage = () => stack.gateway.gate.admin.usage('acme');
      for (let i = 0; i < 200 && (await usage()).inFlight + ((await usage()).requests === 0 ? 1 : 0) > 0; i++) await new Promise((resolve) => setImmediate(resolve));
      const settled = await usage();
      assert.deepEqual([settled.requests, settled.inFlight], [1, 0]);
      assert.equal(stack.openai.requests.length, text !== undefined && /data: \[DONE\]/.test(text) ? 2 : 1);
    });
  }
});
