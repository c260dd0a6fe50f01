import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startGateway, TEST_KEY, type RunningGateway } from '../../support/gateway.js';
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

/** The SQL endpoint writes its id in its answer's own headers too (Route.writesRequestId), JSON and NDJSON alike. */
describe('exactly one x-request-id on every SQL answer kind', () => {
  let gateway: RunningGateway;
  beforeEach(async () => {
    gateway = await startGateway({ keys: [{ key: TEST_KEY, org: 'acme' }], organizations: { acme: {} } });
  });
  afterEach(() => gateway.close());

  function postSql(body: unknown, headers: Record<string, string>): Promise<RawAnswer> {
    return new Promise((resolve, reject) => {
      const req = request(`${gateway.url}/api/sql/query`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}`, ...headers } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, rawHeaders: res.rawHeaders, text }));
      });
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });
  }

  const kinds: [what: string, body: unknown, headers: Record<string, string>, status: number][] = [
    ['a table as JSON', { query: 'SELECT 1 AS one' }, {}, 200],
    ['a table as NDJSON', { query: 'SELECT 1 AS one' }, { accept: 'application/x-ndjson' }, 200],
    ['an ok as NDJSON', { query: 'CREATE TABLE t (x INTEGER)' }, { accept: 'application/x-ndjson' }, 200],
    ['a syntax error', { query: 'SELEC 1' }, {}, 400],
    ['a syntax error asked as NDJSON', { query: 'SELEC 1' }, { accept: 'application/x-ndjson' }, 400],
    ['a body the schema refuses', { query: 7 }, {}, 422],
    ['an unknown key', { query: 'SELECT 1' }, { authorization: 'Bearer tg-unknown-key-0123456789abcdef' }, 401],
  ];
  for (const [what, body, headers, status] of kinds) {
    it(`${what}: ${status}, one request id, each its own`, async () => {
      const first = await postSql(body, headers);
      const second = await postSql(body, headers);
      assert.equal(first.status, status, first.text);
      const ids = [first, second].map((answer) => values(answer, 'x-request-id'));
      assert.equal(ids[0]!.length, 1, `${what}: ${JSON.stringify(first.rawHeaders)}`);
      assert.equal(ids[1]!.length, 1);
      assert.notEqual(ids[0]![0], ids[1]![0]);
    });
  }
});
