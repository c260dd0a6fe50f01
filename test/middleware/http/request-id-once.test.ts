import assert from 'node:assert/strict';
import { request } from 'node:http';
import { keyOf, startPolicyStack } from '../policy/policy-fixture.js';

type Stack = Awaited<ReturnType<typeof startPolicyStack>>;
interface RawAnswer {
  status: number;
  rawHeaders: string[];
  text: string;
}

/** node:http keeps every header line as sent (fetch would join a repeated name into one value). */
function post(url: string, body: unknown, headers: Record<string, string>): Promise<RawAnswer> {
  const payload = typeof body === 'string' ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${keyOf('acme')}`, ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, rawHeaders: res.rawHeaders, text }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

function values(answer: RawAnswer, name: string): string[] {
  return answer.rawHeaders.filter((_, i) => i % 2 === 1 && answer.rawHeaders[i - 1]!.toLowerCase() === name);
}

const CHAT = { model: 'gpt', messages: [{ role: 'user', content: 'one two three' }] };

/**
 * Model routes write their request id in their answer's own header object (Route.writesRequestId) and the
 * dispatcher sets it everywhere else: every answer kind, first run or replay, carries exactly one.
 */
describe('exactly one x-request-id on every answer kind, sent twice', () => {
  let stack: Stack;
  beforeEach(async () => {
    stack = await startPolicyStack({ acme: { wallet: 10 } });
  });
  afterEach(() => stack.close());

  const kinds: [what: string, body: unknown, headers: Record<string, string>, status: number, replayed: boolean, setup?: (stack: Stack) => void][] = [
    ['a JSON answer', CHAT, {}, 200, false],
    ['a keyed JSON answer and its replay', CHAT, { 'idempotency-key': 'json-1' }, 200, true],
    ['a stream', { ...CHAT, stream: true }, {}, 200, false],
    ['a keyed stream and its replay', { ...CHAT, stream: true }, { 'idempotency-key': 'stream-1' }, 200, true],
    ['a validation error, keyed', { model: 'gpt' }, { 'idempotency-key': 'invalid-1' }, 422, false],
    ['a body that is not JSON', '{', {}, 422, false],
    ['an unknown model', { ...CHAT, model: 'nope' }, {}, 404, false],
    ['an unknown key', CHAT, { authorization: 'Bearer tg-unknown-key-0123456789abcdef' }, 401, false],
    ['a provider error, keyed', CHAT, { 'idempotency-key': 'failed-1' }, 500, false, (s) => s.openai.failNext({ status: 500, times: 10 })],
    ['a provider refusal of a keyed stream', { ...CHAT, stream: true }, { 'idempotency-key': 'refused-1' }, 400, false, (s) => s.openai.failNext({ status: 400, times: 10 })],
  ];
  for (const [what, body, headers, status, replayed, setup] of kinds) {
    it(`${what}: ${status}, one request id each time${replayed ? ' (the replay repeats the run’s)' : ''}`, async () => {
      setup?.(stack);
      const first = await post(stack.gateway.url, body, headers);
      const second = await post(stack.gateway.url, body, headers);
      for (const answer of [first, second]) {
        assert.equal(answer.status, status, answer.text);
        assert.equal(values(answer, 'x-request-id').length, 1, JSON.stringify(answer.rawHeaders));
        assert.ok(values(answer, 'x-upstream-request-id').length <= 1);
      }
      assert.deepEqual(values(second, 'idempotent-replayed'), replayed ? ['true'] : []);
      if (replayed) assert.deepEqual(values(second, 'x-request-id'), values(first, 'x-request-id'));
      else assert.notDeepEqual(values(second, 'x-request-id'), values(first, 'x-request-id'));
    });
  }
});
