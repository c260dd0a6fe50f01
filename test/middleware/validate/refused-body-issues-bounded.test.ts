import assert from 'node:assert/strict';
import { startStack, TEST_KEY } from '../gateway/gateway-fixture.js';

/**
 * zod reports every issue of a refused body, one object per failing element. A `messages` of 9,000,000 numbers (an
 * 18 MB body, within the 20 MiB limit) took the heap past its limit and the whole process down; 1,000,000 (2 MB) were
 * ~4 s of one request's validation and a 122 MB 422. A large refused body now answers with its first issue.
 */
describe('a refused body with a million wrong elements', function () {
  this.timeout(30_000);
  let stack: Awaited<ReturnType<typeof startStack>>;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.close());

  const million = `[${Array(1_000_000).fill('1').join(',')}]`;
  const send = (path: string, body: string) =>
    fetch(`${stack.gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` }, body });

  for (const [path, body] of [
    ['/v1/chat/completions', `{"model":"gpt","messages":${million}}`],
    ['/v1/messages', `{"model":"gpt","max_tokens":5,"messages":${million}}`],
    ['/v1/messages/count_tokens', `{"model":"gpt","messages":${million}}`],
    ['/v1/responses', `{"model":"gpt","input":${million}}`],
  ] as const) {
    it(`${path} answers 422 naming its first wrong element, in a small body and at once`, async () => {
      const started = Date.now();
      const response = await send(path, body);
      const text = await response.text();
      // Was ~4 s (chat, messages) and ~6 s with 1 GB of issues (responses' union), on the CI's 2 cores.
      assert.ok(Date.now() - started < 2_500, `${Date.now() - started} ms`);
      assert.equal(response.status, 422);
      assert.ok(text.length < 4_096, `${text.length} bytes`);
      const answer = JSON.parse(text) as { detail?: { loc: unknown[] }[]; error?: { message: string } };
      if (path.startsWith('/v1/messages')) assert.match(answer.error!.message, /^body\.messages\.0: /);
      else assert.deepEqual(answer.detail!.map((item) => item.loc), [['body', path === '/v1/responses' ? 'input' : 'messages', ...(path === '/v1/responses' ? [] : [0])]]);
    });
  }

  it('still lists every issue of a small refused body', async () => {
    const messages = Array.from({ length: 30 }, () => ({ role: 'robot', content: 'hi' }));
    const response = await send('/v1/chat/completions', JSON.stringify({ model: 'gpt', messages }));
    assert.equal(response.status, 422);
    const answer = (await response.json()) as { detail: { loc: unknown[]; type: string }[] };
    assert.deepEqual(answer.detail.map((item) => item.loc), messages.map((_, index) => ['body', 'messages', index, 'role']));
    assert.ok(answer.detail.every((item) => item.type === 'enum'));
  });
});
