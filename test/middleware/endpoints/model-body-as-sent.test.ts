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
    // Then max_tokens: the output budget the request reserved, sent when the client set none (README "Reservations").
    assert.deepEqual(Object.keys(sent), ['messages', 'temperature', 'x_vendor', 'model', 'max_tokens']);
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

  const objectPrototypeNames = '"constructor":{"x":1},"toString":"t","valueOf":2,"hasOwnProperty":null,"isPrototypeOf":[]';
  for (const model of ['gpt', 'claude', 'claude-with-fallback'] as const) {
    it(`answers a body whose objects carry Object.prototype's names as own keys (${model}): no 500, nothing of it read as a method`, async () => {
      if (model === 'claude-with-fallback') stack.anthropic.failNext({ status: 503, times: 5 });
      const answer = await post(
        `{"model":"${model}",${objectPrototypeNames},"messages":[{"role":"user","content":[{"type":"text","text":"hi",${objectPrototypeNames}}],${objectPrototypeNames}}],"tools":[{"type":"function","function":{"name":"f",${objectPrototypeNames}},${objectPrototypeNames}}],"max_tokens":20}`,
      );
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(answer.body.object, 'chat.completion');
    });
  }

  it('relays an own "__proto__" inside a value the schema does not describe as the client sent it, and pollutes nothing', async () => {
    const answer = await post('{"model":"gpt","messages":[{"role":"user","content":"hi"}],"x_vendor":{"__proto__":{"polluted":1},"a":1}}');
    assert.equal(answer.status, 200);
    assert.equal(({} as { polluted?: number }).polluted, undefined);
    const sent = stack.openai.requests.at(-1)!.body as Record<string, Record<string, unknown>>;
    assert.equal(sent.x_vendor!.a, 1);
  });

  it('answers a body of 20,000 messages (the check walks each) as zod would: 200, every message relayed', async () => {
    const messages = Array.from({ length: 20_000 }, (_, i) => `{"role":"${i % 2 ? 'assistant' : 'user'}","content":"m${i}"}`).join(',');
    const answer = await post(`{"model":"gpt","messages":[${messages}]}`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body).slice(0, 300));
    assert.equal((stack.openai.requests.at(-1)!.body as { messages: unknown[] }).messages.length, 20_000);
  });

  for (const model of ['gpt', 'claude'] as const) {
    it(`answers text parts whose text is an object with its own "toString" and "valueOf" (not functions) through a ${model} route: 200, not a 500`, async () => {
      const odd = '{"toString":"x","valueOf":"y"}';
      const answer = await post(`{"model":"${model}","messages":[{"role":"system","content":[{"type":"text","text":${odd}}]},{"role":"user","content":[{"type":"text","text":${odd}},{"type":"text","text":[${odd}]}]}]}`);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
    });
  }

  for (const model of ['gpt', 'claude'] as const) {
    it(`answers 422 before routing (${model}) to an image part whose image_url.url is not a string, calling no provider`, async () => {
      for (const imageUrl of ['{"url":{"toString":"x"}}', '{"url":1e308}', '""', '[{"url":"https://x/y.png"}]', 'null']) {
        const answer = await post(`{"model":"${model}","messages":[{"role":"user","content":[{"type":"text","text":"see"},{"type":"image_url","image_url":${imageUrl}}]}]}`);
        assert.equal(answer.status, 422, `${imageUrl}: ${JSON.stringify(answer.body)}`);
        assert.deepEqual(answer.body.detail[0].loc, ['body', 'messages', 0, 'content', 1, 'image_url', 'url']);
      }
      const missing = await post(`{"model":"${model}","messages":[{"role":"user","content":[{"type":"image_url"}]}]}`);
      assert.equal(missing.status, 422);
      assert.equal(stack.openai.requests.length + stack.anthropic.requests.length, 0);
    });
  }
});
