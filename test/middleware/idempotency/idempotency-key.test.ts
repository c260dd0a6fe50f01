import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect } from 'node:net';
import OpenAI from 'openai';
import type { ConfigInput } from '@tollgate/middleware';
import { RedisServer } from '../../support/redis-server.js';
import { TestClock, keyOf, startPolicyStack } from '../policy/policy-fixture.js';

type Stack = Awaited<ReturnType<typeof startPolicyStack>>;

const CHAT = { model: 'gpt', messages: [{ role: 'user', content: 'one two three' }] };

function post(url: string, body: unknown, idempotencyKey?: string, path = '/v1/chat/completions') {
  const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${keyOf('acme')}` };
  if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
  return fetch(`${url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) }).then(async (response) => ({ status: response.status, headers: response.headers, text: await response.text() }));
}

/** The names of the answer's headers in the order they were sent (fetch's Headers sorts them). */
function headerNamesInOrder(url: string, body: unknown, idempotencyKey?: string): Promise<string[]> {
  const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${keyOf('acme')}` };
  if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v1/chat/completions`, { method: 'POST', headers }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.rawHeaders.filter((_, i) => i % 2 === 0).map((name) => name.toLowerCase())));
    });
    req.once('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** The answer's status and raw header lines (names lower-cased), as sent: a header sent twice shows twice. */
function rawAnswer(url: string, body: unknown, idempotencyKey: string, path = '/v1/chat/completions'): Promise<{ status: number; names: string[]; values: Record<string, string> }> {
  const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${keyOf('acme')}`, 'idempotency-key': idempotencyKey };
  if (path === '/v1/messages') headers['anthropic-version'] = '2023-06-01';
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method: 'POST', headers }, (res) => {
      res.resume();
      res.once('end', () => {
        const names = res.rawHeaders.filter((_, i) => i % 2 === 0).map((name) => name.toLowerCase());
        const values: Record<string, string> = {};
        for (let i = 0; i < res.rawHeaders.length; i += 2) values[res.rawHeaders[i]!.toLowerCase()] = res.rawHeaders[i + 1]!;
        resolve({ status: res.statusCode!, names, values });
      });
    });
    req.once('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** Sends the request over a raw socket and drops the connection as soon as the answer starts arriving: a lost reply. */
function postAndDropConnection(url: string, body: unknown, idempotencyKey: string): Promise<void> {
  const { hostname, port } = new URL(url);
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(`POST /v1/chat/completions HTTP/1.1\r\nhost: ${hostname}\r\ncontent-type: application/json\r\nauthorization: Bearer ${keyOf('acme')}\r\nidempotency-key: ${idempotencyKey}\r\ncontent-length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`);
    });
    socket.once('data', () => {
      socket.destroy();
      resolve();
    });
    socket.once('error', reject);
  });
}

/** Sends the request over a raw socket and closes it once the provider has the call, before any answer: a client that gave up. */
async function postAndLeaveBeforeAnswer(url: string, body: unknown, idempotencyKey: string, upstreamCalled: () => boolean): Promise<void> {
  const { hostname, port } = new URL(url);
  const payload = JSON.stringify(body);
  const socket = connect(Number(port), hostname);
  let answered = false;
  socket.once('data', () => (answered = true));
  socket.write(`POST /v1/chat/completions HTTP/1.1\r\nhost: ${hostname}\r\ncontent-type: application/json\r\nauthorization: Bearer ${keyOf('acme')}\r\nidempotency-key: ${idempotencyKey}\r\ncontent-length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`);
  while (!upstreamCalled()) await new Promise((resolve) => setTimeout(resolve, 5));
  socket.destroy();
  assert.equal(answered, false, 'the client left before any answer');
}

describe('Idempotency-Key on model requests (README "Idempotency keys")', function () {
  let redis: RedisServer;
  const stacks: Stack[] = [];
  const start = async (organizations: ConfigInput['organizations'] = { acme: { wallet: 10 } }, store?: ConfigInput['store']) => {
    const stack = await startPolicyStack(organizations, store ? { store } : {});
    stacks.push(stack);
    return stack;
  };

  before(async () => {
    redis = await RedisServer.start();
  });
  after(() => redis.close());
  afterEach(async () => {
    for (const stack of stacks.splice(0)) await stack.close();
  });

  it('sends a keyed JSON answer as an unkeyed one: the same header names in the same order (its one writeHead, nothing set before)', async () => {
    // A header set on the response before sendJson's writeHead makes Node merge each of the answer's headers
    // in with setHeader (the id first) instead of sending its object as it is (issue 22).
    const stack = await start();
    const unkeyed = await headerNamesInOrder(stack.gateway.url, CHAT);
    const keyed = await headerNamesInOrder(stack.gateway.url, CHAT, 'same-head-1');
    assert.deepEqual(keyed, unkeyed);
    assert.ok(keyed.includes('x-request-id'));
  });

  it('sends the request id exactly once on a keyed answer, its replay, a 409 while it runs and a 422 for another body', async () => {
    const stack = await start();
    stack.openai.delay(200);
    const first = rawAnswer(stack.gateway.url, CHAT, 'ids');
    while (stack.openai.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const busy = await rawAnswer(stack.gateway.url, CHAT, 'ids');
    const fresh = await first;
    const replay = await rawAnswer(stack.gateway.url, CHAT, 'ids');
    const other = await rawAnswer(stack.gateway.url, { ...CHAT, messages: [{ role: 'user', content: 'else' }] }, 'ids');
    const seen = [fresh, busy, replay, other].map((answer) => [answer.status, answer.names.filter((name) => name === 'x-request-id').length]);
    assert.deepEqual(seen, [
      [200, 1],
      [409, 1],
      [200, 1],
      [422, 1],
    ]);
    assert.equal(replay.values['x-request-id'], fresh.values['x-request-id'], 'a replay names the request that ran');
    assert.notEqual(busy.values['x-request-id'], fresh.values['x-request-id']);
    assert.equal(stack.openai.requests.length, 1);
  });

  for (const [what, garbage] of [
    ['a 200 whose body is not JSON', { status: 200, body: '<html>oops</html>', contentType: 'application/json' }],
    ['a 200 cut short of its Content-Length', { status: 200, body: '{"id":"chatcmpl-1","choices":[', contentType: 'application/json', closeShort: true }],
    ['a 500 error page', { status: 500, body: '<html>down</html>' }],
  ] as const) {
    it(`answers a keyed request whose provider sends ${what} with an error carrying the request id once, frees the key, and bills only the run that answered`, async () => {
      const stack = await start();
      // More garbage than one request's attempts (it retries): each keyed run fails, frees the key, and the next runs.
      stack.openai.answerRawNext({ ...garbage, times: 8 });
      let failures = 0;
      let answer = await rawAnswer(stack.gateway.url, CHAT, `garbage-${garbage.status}`);
      for (; answer.status !== 200 && failures < 20; failures++) {
        assert.ok(answer.status >= 400, `status ${answer.status}`); // a provider's 5xx is relayed as its status (README "Error types")
        assert.equal(answer.names.filter((name) => name === 'x-request-id').length, 1);
        answer = await rawAnswer(stack.gateway.url, CHAT, `garbage-${garbage.status}`);
      }
      assert.ok(failures > 0, 'at least one keyed run failed');
      assert.equal(answer.status, 200);
      assert.equal(answer.values['idempotent-replayed'], undefined, 'the last run ran');
      const usage = await stack.gateway.gate.admin.usage('acme');
      assert.equal(Math.round((10 - usage.wallet) * 1e6), 48, 'billed once, for the run that answered');
    });
  }

  it('answers a repeat after a dropped connection with the same body and headers, billed once (raw HTTP)', async () => {
    const stack = await start();
    await postAndDropConnection(stack.gateway.url, CHAT, 'order-42');
    const first = await post(stack.gateway.url, CHAT, 'first-twin');
    // As a client does: a 409 (the first still finishing on the server) is retried.
    let replay = await post(stack.gateway.url, CHAT, 'order-42');
    for (let i = 0; i < 100 && replay.status === 409; i++) replay = await post(stack.gateway.url, CHAT, 'order-42');
    assert.equal(replay.status, 200);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal(JSON.parse(replay.text).choices[0].message.content, JSON.parse(first.text).choices[0].message.content);
    const again = await post(stack.gateway.url, CHAT, 'order-42');
    assert.equal(again.text, replay.text, 'the same bytes every time');
    assert.equal(again.headers.get('x-request-id'), replay.headers.get('x-request-id'), 'the id of the request that ran');
    assert.equal(stack.openai.requests.length, 2, 'the upstream ran once for order-42');
    const usage = await stack.gateway.gate.admin.usage('acme');
    assert.equal(usage.requests, 2);
    assert.equal(Math.round((10 - usage.wallet) * 1e6), 2 * 48);
  });

  it('keeps the answer of a request whose client left before it came: the retry gets it, billed once', async () => {
    const stack = await start();
    stack.openai.delay(200);
    await postAndLeaveBeforeAnswer(stack.gateway.url, CHAT, 'gave-up', () => stack.openai.requests.length > 0);
    // The retry finds the first still running (409, retryable) until its answer is kept, then gets that answer.
    let retry = await post(stack.gateway.url, CHAT, 'gave-up');
    for (let i = 0; i < 200 && retry.status === 409; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      retry = await post(stack.gateway.url, CHAT, 'gave-up');
    }
    assert.equal(retry.status, 200);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.equal(stack.openai.requests.length, 1, 'the provider was called once');
    const usage = await stack.gateway.gate.admin.usage('acme');
    assert.equal(usage.requests, 1);
    assert.equal(Math.round((10 - usage.wallet) * 1e6), 48, 'billed once');
  });

  it('keeps a running claim through a clock that jumps forward a month (memory store): the repeat answers 409, billed once', async () => {
    // A VM resumed or an NTP step forward while the request runs: the request is still running in this process.
    const clock = new TestClock();
    const stack = await startPolicyStack({ acme: { wallet: 10 } }, { clock });
    stacks.push(stack);
    stack.openai.delay(1_000);
    const first = post(stack.gateway.url, CHAT, 'jumped');
    while (stack.openai.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    clock.advance(31 * 24 * 3_600_000);
    const repeat = await post(stack.gateway.url, CHAT, 'jumped');
    assert.equal(repeat.status, 409);
    assert.equal(JSON.parse(repeat.text).error.code, 'idempotency_key_in_use');
    assert.equal((await first).status, 200);
    const replay = await post(stack.gateway.url, CHAT, 'jumped');
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal(stack.openai.requests.length, 1, 'the provider was called once');
    const usage = await stack.gateway.gate.admin.usage('acme');
    assert.equal(usage.requests, 1);
    assert.equal(Math.round((10 - usage.wallet) * 1e6), 48, 'billed once');
  });

  it('retries through the official openai SDK after a lost reply, billed once, with the same completion', async () => {
    const stack = await start();
    let dropped: string | undefined;
    // The first answer arrives at the "network", which then fails as a reset connection would.
    const flakyFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (dropped !== undefined) return response;
      dropped = await response.text();
      throw new TypeError('fetch failed: socket hang up');
    };
    const client = new OpenAI({ baseURL: `${stack.gateway.url}/v1`, apiKey: keyOf('acme'), fetch: flakyFetch, maxRetries: 2 });
    // openai 6.x: the `idempotencyKey` request option sends nothing unless the client sets an idempotency
    // header name, so the key goes as a header.
    const completion = await client.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'one two three' }] }, { headers: { 'Idempotency-Key': 'sdk-1' } });
    assert.ok(dropped);
    assert.deepEqual(completion, JSON.parse(dropped));
    assert.equal(stack.openai.requests.length, 1);
    assert.equal((await stack.gateway.gate.admin.usage('acme')).requests, 1);
  });

  it('answers 422 idempotency_key_reused to a repeat with another body, running nothing', async () => {
    const stack = await start();
    assert.equal((await post(stack.gateway.url, CHAT, 'k-1')).status, 200);
    const other = await post(stack.gateway.url, { ...CHAT, messages: [{ role: 'user', content: 'something else' }] }, 'k-1');
    assert.equal(other.status, 422);
    assert.equal(JSON.parse(other.text).error.code, 'idempotency_key_reused');
    assert.equal(stack.openai.requests.length, 1);
  });

  it('replays a repeat whose body a client re-serialized with its keys in another order, billed once', async () => {
    // The fingerprint is of the validated body: a retry through another JSON serializer is the same request.
    const stack = await start();
    const first = await post(stack.gateway.url, { model: 'gpt', max_tokens: 20, messages: [{ role: 'user', content: 'one two three' }] }, 'reordered');
    assert.equal(first.status, 200);
    const repeat = await post(stack.gateway.url, { messages: [{ content: 'one two three', role: 'user' }], max_tokens: 20, model: 'gpt' }, 'reordered');
    assert.equal(repeat.status, 200, repeat.text);
    assert.equal(repeat.headers.get('idempotent-replayed'), 'true');
    assert.equal(repeat.text, first.text);
    assert.equal(stack.openai.requests.length, 1);
    assert.equal((await stack.gateway.gate.admin.usage('acme')).requests, 1);
  });

  it('replays a /v1/messages repeat whose keys come in another order, billed once', async () => {
    const stack = await start();
    const first = await post(stack.gateway.url, { model: 'gpt', max_tokens: 20, messages: [{ role: 'user', content: 'one two three' }] }, 'reordered-messages', '/v1/messages');
    assert.equal(first.status, 200, first.text);
    const repeat = await post(stack.gateway.url, { messages: [{ content: 'one two three', role: 'user' }], max_tokens: 20, model: 'gpt' }, 'reordered-messages', '/v1/messages');
    assert.equal(repeat.status, 200, repeat.text);
    assert.equal(repeat.text, first.text);
    assert.equal(stack.openai.requests.length, 1);
    assert.equal((await stack.gateway.gate.admin.usage('acme')).requests, 1);
  });

  it('answers 409 idempotency_key_in_use (x-should-retry: true) while the first still runs, then the answer', async () => {
    const stack = await start();
    stack.openai.delay(300);
    const first = post(stack.gateway.url, CHAT, 'slow');
    while (stack.openai.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const busy = await post(stack.gateway.url, CHAT, 'slow');
    assert.equal(busy.status, 409);
    assert.equal(JSON.parse(busy.text).error.code, 'idempotency_key_in_use');
    assert.equal(busy.headers.get('x-should-retry'), 'true');
    const answer = await first;
    assert.equal((await post(stack.gateway.url, CHAT, 'slow')).text, answer.text);
    assert.equal((await stack.gateway.gate.admin.usage('acme')).requests, 1);
  });

  it('replays a finished stream byte for byte', async () => {
    const stack = await start();
    const body = { ...CHAT, stream: true, stream_options: { include_usage: true } };
    const first = await post(stack.gateway.url, body, 'stream-1');
    const replay = await post(stack.gateway.url, body, 'stream-1');
    assert.equal(replay.headers.get('content-type'), first.headers.get('content-type'));
    assert.equal(replay.text, first.text);
    assert.match(replay.text, /data: \[DONE\]/);
    assert.equal((await stack.gateway.gate.admin.usage('acme')).requests, 1);
  });

  for (const dropAfter of [1, 4]) {
    it(`keeps no stream its provider broke off after ${dropAfter} event(s): the repeat runs again, each run billed once, no slot left taken`, async () => {
      const stack = await start({ acme: { wallet: 10, limits: { concurrency: 1 } } });
      stack.openai.reply({ text: Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ') });
      stack.openai.dropAfterChunks(dropAfter);
      const body = { ...CHAT, stream: true };
      const broken = await post(stack.gateway.url, body, `broken-${dropAfter}`).catch(() => undefined);
      assert.ok(broken === undefined || broken.status !== 200 || !/\[DONE\]/.test(broken.text), 'never a whole stream');
      const usage = async () => stack.gateway.gate.admin.usage('acme');
      for (let i = 0; i < 200 && ((await usage()).requests < 1 || (await usage()).inFlight > 0); i++) await new Promise((resolve) => setTimeout(resolve, 10));
      stack.openai.dropAfterChunks(undefined);
      let repeat = await post(stack.gateway.url, body, `broken-${dropAfter}`);
      for (let i = 0; i < 200 && repeat.status === 409; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        repeat = await post(stack.gateway.url, body, `broken-${dropAfter}`);
      }
      assert.equal(repeat.status, 200);
      assert.equal(repeat.headers.get('idempotent-replayed'), null, 'ran again, not replayed');
      assert.match(repeat.text, /data: \[DONE\]/);
      assert.equal(stack.openai.requests.length, 2, 'the broken run (its relay had begun: not retried), then the repeat');
      const after = await usage();
      assert.equal(after.inFlight, 0);
      assert.equal(after.requests, 2, 'each run billed once');
      const replay = await post(stack.gateway.url, body, `broken-${dropAfter}`);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.equal(replay.text, repeat.text);
    });
  }

  it('frees the key when the request is refused, so the retry after a top-up runs', async () => {
    const stack = await start({ acme: { wallet: 0 } });
    assert.equal((await post(stack.gateway.url, CHAT, 'broke')).status, 402);
    await stack.gateway.gate.admin.topUp('acme', 1);
    const retried = await post(stack.gateway.url, CHAT, 'broke');
    assert.equal(retried.status, 200);
    assert.equal(retried.headers.get('idempotent-replayed'), null);
  });

  it('refuses a malformed key with 400, running nothing', async () => {
    const stack = await start({ acme: { wallet: 10 } });
    const bad = await post(stack.gateway.url, CHAT, 'x'.repeat(256));
    assert.equal(bad.status, 400);
    assert.equal(stack.openai.requests.length, 0);
  });

  it('replays across two instances sharing Redis, billed once', async () => {
    const store = { kind: 'redis' as const, url: redis.url, prefix: `i${Math.random().toString(36).slice(2)}:` };
    const a = await start({ acme: { wallet: 10 } }, store);
    const b = await start({ acme: { wallet: 10 } }, store);
    const first = await post(a.gateway.url, CHAT, 'shared-1');
    const replay = await post(b.gateway.url, CHAT, 'shared-1');
    assert.equal(replay.status, 200);
    assert.equal(replay.text, first.text);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal(b.openai.requests.length, 0);
    assert.equal((await b.gateway.gate.admin.usage('acme')).requests, 1);
    const other = await post(b.gateway.url, { ...CHAT, model: 'claude' }, 'shared-1');
    assert.equal(other.status, 422);
  });

  it('replays a finished stream byte for byte on another instance sharing Redis, billed once', async () => {
    const store = { kind: 'redis' as const, url: redis.url, prefix: `i${Math.random().toString(36).slice(2)}:` };
    const a = await start({ acme: { wallet: 10 } }, store);
    const b = await start({ acme: { wallet: 10 } }, store);
    const body = { ...CHAT, stream: true, stream_options: { include_usage: true } };
    const first = await post(a.gateway.url, body, 'stream-shared');
    const replay = await post(b.gateway.url, body, 'stream-shared');
    assert.equal(replay.status, 200);
    assert.equal(replay.headers.get('content-type'), first.headers.get('content-type'));
    assert.equal(replay.headers.get('x-request-id'), first.headers.get('x-request-id'));
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal(replay.text, first.text);
    assert.match(replay.text, /data: \[DONE\]/);
    assert.equal(b.openai.requests.length, 0);
    assert.equal((await b.gateway.gate.admin.usage('acme')).requests, 1);
  });
});
