import assert from 'node:assert/strict';
import { startIssue5Stack, TEST_KEY, type Issue5Stack } from '../endpoints-issue5/issue5-stack.js';

const chat = { model: 'gpt', messages: [{ role: 'user', content: 'hi' }] };
const messages = { model: 'claude', messages: [{ role: 'user', content: 'hi' }] };

/**
 * Contract §8: an output budget above the hard cap (131,072) answers 400 `max_tokens_exceeded`, however large —
 * also past 2^53 − 1, where zod's `int()` used to answer 422 first (wire/output-budget.ts). A fraction is still the
 * schema's 422 `int_type`, with the message it always had.
 */
describe('an output budget past the hard cap, however large', function () {
  this.timeout(20_000);
  let stack: Issue5Stack;
  before(async () => {
    stack = await startIssue5Stack();
  });
  after(() => stack.close());

  async function post(path: string, body: object, headers: Record<string, string> = { authorization: `Bearer ${TEST_KEY}` }) {
    const response = await fetch(`${stack.gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as any };
  }

  for (const [path, field, body, headers] of [
    ['/v1/chat/completions', 'max_tokens', { ...chat, max_tokens: 2 ** 53 }, undefined],
    ['/v1/chat/completions', 'max_completion_tokens', { ...chat, max_completion_tokens: 1e20 }, undefined],
    ['/v1/responses', 'max_output_tokens', { model: 'gpt', input: 'hi', max_output_tokens: 1e300 }, undefined],
    ['/v1/messages', 'max_tokens', { ...messages, max_tokens: 1e20 }, { 'x-api-key': TEST_KEY }],
  ] as const) {
    it(`${path} with ${field} ${(body as Record<string, unknown>)[field]} answers 400 max_tokens_exceeded, nothing billed`, async () => {
      const before = await stack.gateway.gate.admin.usage('acme');
      const { status, body: answer } = await post(path, body, headers);
      assert.equal(status, 400, JSON.stringify(answer));
      // The Anthropic envelope names no code: its message says the cap.
      if (path === '/v1/messages') assert.match(answer.error.message, /above the maximum of 131072/);
      else assert.equal(answer.error.code, 'max_tokens_exceeded');
      assert.equal((await stack.gateway.gate.admin.usage('acme')).requests, before.requests);
    });
  }

  for (const [path, field, text, headers] of [
    ['/v1/chat/completions', 'max_tokens', '{"model":"gpt","messages":[{"role":"user","content":"hi"}],"max_tokens":1e309}', { authorization: `Bearer ${TEST_KEY}` }],
    ['/v1/messages', 'max_tokens', '{"model":"claude","messages":[{"role":"user","content":"hi"}],"max_tokens":1e309}', { 'x-api-key': TEST_KEY }],
    ['/v1/responses', 'max_output_tokens', '{"model":"gpt","input":"hi","max_output_tokens":1e999}', { authorization: `Bearer ${TEST_KEY}` }],
  ] as const) {
    it(`${path} with ${field} past JSON's doubles (${text.match(/1e\d+/)![0]}, parsed as Infinity) answers 400 max_tokens_exceeded, not 422`, async () => {
      const response = await fetch(`${stack.gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: text });
      const answer = (await response.json()) as any;
      assert.equal(response.status, 400, JSON.stringify(answer));
      assert.match(answer.error.message, new RegExp(`${field} is past the largest number JSON carries, above the maximum of 131072`));
    });
  }

  it('answers 422 int_type, the message it always had, to a fractional max_tokens', async () => {
    const { status, body } = await post('/v1/chat/completions', { ...chat, max_tokens: 2.5 });
    assert.equal(status, 422);
    assert.deepEqual(body.detail, [{ type: 'int_type', loc: ['body', 'max_tokens'], msg: 'Invalid input: expected int, received number', input: 2.5 }]);
  });
});
