import assert from 'node:assert/strict';
import { postJson } from '../../support/gateway.js';
import { TEST_KEY, startStack } from '../gateway/gateway-fixture.js';

describe('a model request body taken as the client sent it', () => {
  let stack: Awaited<ReturnType<typeof startStack>>;
  beforeEach(async () => {
    stack = await startStack();
  });
  afterEach(() => stack.close());

  const post = (text: string) => postJson(`${stack.gateway.url}/v1/chat/completions`, text, { authorization: `Bearer ${TEST_KEY}` });
  const postMessages = (text: string) => postJson(`${stack.gateway.url}/v1/messages`, text, { 'x-api-key': TEST_KEY });

  it("reaches an OpenAI route with its keys in the client's order, unknown fields included", async () => {
    const answer = await post('{"messages":[{"content":"hi","role":"user","x_tag":1}],"temperature":0.5,"x_vendor":{"b":1,"a":2},"model":"gpt"}');
    assert.equal(answer.status, 200);
    const sent = stack.openai.requests.at(-1)!.body as Record<string, unknown>;
    assert.deepEqual(Object.keys(sent), ['messages', 'temperature', 'x_vendor', 'model']);
    assert.deepEqual(Object.keys((sent.messages as object[])[0]!), ['content', 'role', 'x_tag']);
    assert.equal(sent.model, 'gpt-4o');
  });

  it('never relays an own "__proto__" key, at the top or inside a message', async () => {
    const answer = await post('{"model":"gpt","__proto__":{"polluted":1},"messages":[{"role":"user","content":"hi","__proto__":{"polluted":1}}]}');
    assert.equal(answer.status, 200);
    const sent = stack.openai.requests.at(-1)!.body as Record<string, unknown>;
    assert.equal(Object.hasOwn(sent, '__proto__'), false);
    assert.equal(Object.hasOwn((sent.messages as object[])[0]!, '__proto__'), false);
    assert.deepEqual(sent.messages, [{ role: 'user', content: 'hi' }]);
  });

  it('answers a body the schema refuses with the same 422 detail as before', async () => {
    const answer = await post('{"model":"gpt","messages":[{"role":"user","content":"hi"}],"max_tokens":1.5,"n":0}');
    assert.equal(answer.status, 422);
    assert.deepEqual(
      answer.body.detail.map((item: { loc: unknown[]; type: string }) => [item.loc.join('.'), item.type]),
      [
        ['body.max_tokens', 'int_type'],
        ['body.n', 'too_short'],
      ],
    );
    assert.equal(stack.openai.requests.length, 0);
  });

  it("reaches an Anthropic route from /v1/messages with its keys in the client's order", async () => {
    const answer = await postMessages('{"messages":[{"content":"hi","role":"user"}],"max_tokens":64,"system":"be brief","model":"claude"}');
    assert.equal(answer.status, 200);
    const sent = stack.anthropic.requests.at(-1)!.body as Record<string, unknown>;
    assert.deepEqual(Object.keys(sent), ['messages', 'max_tokens', 'system', 'model']);
    assert.deepEqual(Object.keys((sent.messages as object[])[0]!), ['content', 'role']);
    assert.equal(sent.model, 'claude-sonnet-4-5');
  });

  it('never relays an own "__proto__" key from /v1/messages, and refuses what the schema refuses as before', async () => {
    const answer = await postMessages('{"model":"claude","max_tokens":64,"__proto__":{"polluted":1},"messages":[{"role":"user","content":"hi","__proto__":{"polluted":1}}]}');
    assert.equal(answer.status, 200);
    const sent = stack.anthropic.requests.at(-1)!.body as Record<string, unknown>;
    assert.equal(Object.hasOwn(sent, '__proto__'), false);
    assert.deepEqual(sent.messages, [{ role: 'user', content: 'hi' }]);
    const refused = await postMessages('{"model":"claude","max_tokens":64,"messages":[]}');
    assert.equal(refused.status, 422);
    assert.equal(refused.body.error.type, 'invalid_request_error');
    assert.equal(stack.anthropic.requests.length, 1);
  });
});
