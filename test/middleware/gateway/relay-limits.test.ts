import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { startStack, TEST_KEY } from './gateway-fixture.js';
import { postJson, readSse } from '../../support/gateway.js';
import { openStalledRequest, waitUntil, waitUntilStalled } from '../../support/stalled-client.js';

const MIB = 1_048_576;
const user = (content: string) => [{ role: 'user', content }];
const auth = { authorization: `Bearer ${TEST_KEY}` };
const ENDLESS_TEXT = 'lorem ipsum dolor sit amet '.repeat(40);

type Stack = Awaited<ReturnType<typeof startStack>>;

async function inFlight(stack: Stack, org = 'acme'): Promise<number> {
  return (await stack.gateway.gate.admin.usage(org)).inFlight;
}

function streamChat(stack: Stack, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${stack.gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: JSON.stringify({ model: 'gpt', stream: true, ...body }) });
}

describe('relay limits: clients that stop reading and providers that never stop', () => {
  let stack: Stack;
  afterEach(async () => {
    await stack?.close();
  });

  describe('a streaming client that stops reading, then disconnects (issue 15 item 1)', () => {
    it('releases its concurrency slot and bills the output produced, so the wallet goes negative and the next call answers 402', async () => {
      // 0.17 USD covers the reservation (16,384 output tokens at 10 USD per million); the endless fake
      // ignores the output budget, so what it streams costs more than was reserved (README "Reservations").
      stack = await startStack({ organizations: { acme: { wallet: 0.17 } } });
      stack.openai.reply({ text: ENDLESS_TEXT, endless: true });
      const socket = await openStalledRequest(stack.gateway.url, '/v1/chat/completions', TEST_KEY, { model: 'gpt', stream: true, messages: user('hi') });
      const streamed = await waitUntilStalled(() => stack.openai.streamedBytes);
      assert.equal(await inFlight(stack), 1);
      socket.destroy();

      await waitUntil('the slot is released', async () => (await inFlight(stack)) === 0);
      await waitUntil('the upstream stream is cancelled', () => stack.openai.requests[0]!.aborted);
      const usage = await stack.gateway.gate.admin.usage('acme');
      assert.equal(usage.requests, 1);
      // Billed is everything relayed towards the client (all it could ever read): here ~0.6 MB of the ~4 MB the
      // provider pushed; the rest still sat unread in the gateway's upstream buffers when it was cancelled.
      assert.ok(streamed > MIB, `the provider streamed ${streamed} bytes`);
      assert.ok(usage.outputTokens > 20_000, `billed ${usage.outputTokens} output tokens`);
      assert.ok(usage.wallet < 0, `wallet ${usage.wallet}`);
      const next = await postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'gpt', messages: user('hi') }, auth);
      assert.equal(next.status, 402);
      assert.equal(next.body.error.code, 'wallet_empty');
    });
  });

  describe('a client that connects and never reads (issue 15 item 5)', () => {
    it('has its stream ended as a failed stream after relay.maxPausedStreamMs, billed, with the upstream connection released', async () => {
      stack = await startStack({ relay: { maxPausedStreamMs: 300 } });
      stack.openai.reply({ text: ENDLESS_TEXT, endless: true });
      const socket = await openStalledRequest(stack.gateway.url, '/v1/chat/completions', TEST_KEY, { model: 'gpt', stream: true, messages: user('hi') });
      const closed = new Promise((resolve) => socket.once('close', resolve));
      await waitUntil('the upstream stream is cancelled', () => stack.openai.requests[0]?.aborted === true);
      await waitUntil('the slot is released', async () => (await inFlight(stack)) === 0);
      const usage = await stack.gateway.gate.admin.usage('acme');
      assert.equal(usage.requests, 1);
      assert.ok(usage.outputTokens > 1_000, `billed ${usage.outputTokens} output tokens`);
      // The gateway closed the connection of the client that would not read.
      socket.resume();
      await closed;
    });

    it('cannot starve another organization of the upstream pool by opening streams it never reads', async () => {
      const OTHER_KEY = 'tg-other-org-key-01-0123456789abcdef';
      stack = await startStack({
        keys: [{ key: TEST_KEY, org: 'acme' }, { key: OTHER_KEY, org: 'other' }],
        organizations: { acme: { wallet: 100 }, other: { wallet: 100 } },
        relay: { maxPausedStreamMs: 300, connections: 2 },
      });
      stack.openai.reply({ text: ENDLESS_TEXT, endless: true });
      const sockets = await Promise.all(Array.from({ length: 6 }, () => openStalledRequest(stack.gateway.url, '/v1/chat/completions', TEST_KEY, { model: 'gpt', stream: true, messages: user('hi') })));
      await waitUntil('the pool is taken', () => stack.openai.requests.length >= 2);

      const started = Date.now();
      const plain = await fetch(`${stack.gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${OTHER_KEY}` }, body: JSON.stringify({ model: 'gpt', messages: user('hi'), max_tokens: 5 }) });
      // The endless reply is a stream only; the plain call gets the scripted text as one answer.
      assert.equal(plain.status, 200);
      assert.equal(((await plain.json()) as { model: string }).model, 'gpt');
      assert.ok(Date.now() - started < 5_000, `answered after ${Date.now() - started} ms`);
      for (const socket of sockets) socket.destroy();
      await waitUntil('every slot is released', async () => (await inFlight(stack)) === 0);
    });
  });

  describe('a provider answer larger than relay.maxAnswerBytes (issue 15 item 4)', () => {
    it('answers 502 upstream_answer_too_large, does not retry, and frees the slot', async () => {
      stack = await startStack({ relay: { maxAnswerBytes: MIB } });
      // One "word": the fake cuts its text at the output budget Tollgate sends, a word a token.
      stack.openai.reply({ text: 'x'.repeat(2 * MIB) });
      const response = await postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'gpt', messages: user('hi') }, auth);
      assert.equal(response.status, 502);
      assert.equal(response.body.error.type, 'api_error');
      assert.equal(response.body.error.code, 'upstream_answer_too_large');
      assert.match(response.body.error.message, /larger than 1048576 bytes/);
      assert.equal(stack.openai.requests.length, 1);
      assert.equal(await inFlight(stack), 0);
    });

    it('answers the Anthropic envelope with status 502 on /v1/messages', async () => {
      stack = await startStack({ relay: { maxAnswerBytes: MIB } });
      stack.anthropic.reply({ text: 'word '.repeat(420_000) });
      const anthropic = new Anthropic({ baseURL: stack.gateway.url, apiKey: TEST_KEY, maxRetries: 0 });
      const error = await anthropic.messages.create({ model: 'claude', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
      assert.ok(error instanceof Anthropic.APIError);
      assert.equal(error.status, 502);
      assert.deepEqual((error.error as { type: string; error: { type: string } }).error.type, 'api_error');
      assert.equal(await inFlight(stack), 0);
    });

    it('ends a stream whose single event is larger than the limit as a failed stream, billed, slot freed', async () => {
      stack = await startStack({ relay: { maxAnswerBytes: MIB } });
      // No spaces: the fake sends the whole reply as one content event, after the role chunk.
      stack.openai.reply({ text: 'x'.repeat(2 * MIB) });
      const { events, broke } = await readSse(await streamChat(stack, { messages: user('hi') }));
      assert.equal(broke, true);
      assert.ok(events.length >= 1);
      assert.ok(events.every((event) => !event.data.includes('"finish_reason":"stop"')));
      await waitUntil('the slot is released', async () => (await inFlight(stack)) === 0);
      assert.equal((await stack.gateway.gate.admin.usage('acme')).requests, 1);
      assert.equal(stack.openai.requests.length, 1);
    });

    it('ends a stream past relay.maxStreamBytes as a failed stream, billed, upstream cancelled', async () => {
      stack = await startStack({ relay: { maxStreamBytes: 256 * 1024 } });
      stack.openai.reply({ text: ENDLESS_TEXT, endless: true });
      const { events, broke } = await readSse(await streamChat(stack, { messages: user('hi') }));
      assert.equal(broke, true);
      assert.ok(events.length > 10);
      await waitUntil('the upstream stream is cancelled', () => stack.openai.requests[0]!.aborted);
      await waitUntil('the slot is released', async () => (await inFlight(stack)) === 0);
      const usage = await stack.gateway.gate.admin.usage('acme');
      assert.ok(usage.outputTokens > 10_000, `billed ${usage.outputTokens}`);
    });
  });

  describe('a provider that trickles its answer past relay.attemptDeadlineMs (issue 15 item 4)', () => {
    it('answers 502 upstream_deadline_exceeded at the deadline although bytes keep coming within timeoutMs, and does not retry', async () => {
      stack = await startStack({ relay: { attemptDeadlineMs: 300 } });
      stack.openai.trickle({ bytes: 10, intervalMs: 20 });
      const started = Date.now();
      const response = await postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'gpt', messages: user('hi') }, auth);
      const took = Date.now() - started;
      assert.equal(response.status, 502);
      assert.equal(response.body.error.type, 'api_error');
      assert.equal(response.body.error.code, 'upstream_deadline_exceeded');
      assert.ok(took < 1_500, `answered after ${took} ms`);
      assert.equal(stack.openai.requests.length, 1);
      await waitUntil('the upstream request is cancelled', () => stack.openai.requests[0]!.aborted);
      assert.equal(await inFlight(stack), 0);
    });

    it('answers a JSON 502 when a trickled stream reaches the deadline before its first event', async () => {
      stack = await startStack({ relay: { attemptDeadlineMs: 300 } });
      stack.openai.trickle({ bytes: 5, intervalMs: 20 });
      const response = await streamChat(stack, { messages: user('hi') });
      assert.equal(response.status, 502);
      assert.match(response.headers.get('content-type') ?? '', /application\/json/);
      assert.equal(((await response.json()) as { error: { code: string } }).error.code, 'upstream_deadline_exceeded');
      assert.equal(await inFlight(stack), 0);
    });

    it('ends a stream still trickling at the deadline as a failed stream, billed', async () => {
      stack = await startStack({ relay: { attemptDeadlineMs: 400 } });
      stack.openai.reply({ text: 'one two three four five six seven eight nine ten '.repeat(20) });
      stack.openai.trickle({ bytes: 300, intervalMs: 20 });
      const { events, broke } = await readSse(await streamChat(stack, { messages: user('hi') }));
      assert.equal(broke, true);
      assert.ok(events.length > 1);
      assert.ok(events.every((event) => !event.data.includes('"finish_reason":"stop"')));
      await waitUntil('the slot is released', async () => (await inFlight(stack)) === 0);
      const usage = await stack.gateway.gate.admin.usage('acme');
      assert.equal(usage.requests, 1);
      assert.ok(usage.outputTokens > 0);
    });
  });
});
