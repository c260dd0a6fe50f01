import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import { RedisServer } from '../../support/redis-server.js';
import { postJson } from '../../support/gateway.js';
import { TEST_KEY, startStack } from '../gateway/gateway-fixture.js';

const ID = /^req_[0-9a-f]{16}_[0-9a-z]+$/;

describe('request ids on every answer', () => {
  let stack: Awaited<ReturnType<typeof startStack>>;
  let dir: string;
  let openai: OpenAI;
  let anthropic: Anthropic;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-request-ids-'));
    stack = await startStack({ store: { kind: 'memory', file: join(dir, 'state.json') } });
    openai = new OpenAI({ baseURL: `${stack.gateway.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: stack.gateway.url, apiKey: TEST_KEY, maxRetries: 0 });
  });
  afterEach(async () => {
    await stack.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const ask = (content: string) => ({ max_tokens: 64, messages: [{ role: 'user' as const, content }] });

  it('gives the openai SDK an x-request-id (its _request_id) and upstream OpenAI’s own id in x-upstream-request-id', async () => {
    const { request_id, response } = await openai.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    assert.match(request_id ?? '', ID);
    assert.equal(response.headers.get('x-upstream-request-id'), stack.openai.requests.at(-1)!.requestId);
    const second = await openai.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'again' }] });
    assert.match(second._request_id ?? '', ID);
    assert.notEqual(second._request_id, request_id);
  });

  it('gives the anthropic SDK a request-id (its _request_id) on /v1/messages, native and translated', async () => {
    const native = await anthropic.messages.create({ model: 'claude', ...ask('hi') }).withResponse();
    assert.match(native.request_id ?? '', ID);
    assert.equal(native.response.headers.get('x-request-id'), null);
    assert.equal(native.response.headers.get('x-upstream-request-id'), stack.anthropic.requests.at(-1)!.requestId);
    const translated = await anthropic.messages.create({ model: 'gpt', ...ask('hi') });
    assert.match(translated._request_id ?? '', ID);
    assert.notEqual(translated._request_id, native.request_id);
  });

  it('names streams too, in the stream’s response headers', async () => {
    const chat = await fetch(`${stack.gateway.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'claude', stream: true, messages: [{ role: 'user', content: 'hi' }] }) });
    assert.match(chat.headers.get('content-type') ?? '', /event-stream/);
    assert.match(chat.headers.get('x-request-id') ?? '', ID);
    await chat.text();
    assert.equal(chat.headers.get('x-upstream-request-id'), stack.anthropic.requests.at(-1)!.requestId);
    const { response } = await anthropic.messages.create({ model: 'claude', stream: true, ...ask('hi') }).withResponse();
    assert.match(response.headers.get('request-id') ?? '', ID);
  });

  it('names every error, 401 included, and the SDKs read it into their error’s requestID', async () => {
    const unauthorized = await postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'gpt', messages: [] });
    assert.equal(unauthorized.status, 401);
    assert.match(unauthorized.headers.get('x-request-id') ?? '', ID);
    const anthropicUnauthorized = await postJson(`${stack.gateway.url}/v1/messages`, { model: 'claude', ...ask('hi') });
    assert.equal(anthropicUnauthorized.status, 401);
    assert.match(anthropicUnauthorized.headers.get('request-id') ?? '', ID);
    const sql = await postJson(`${stack.gateway.url}/api/sql/query`, { query: 'SELECT 1' });
    assert.match(sql.headers.get('x-request-id') ?? '', ID);
    const wrongMethod = await fetch(`${stack.gateway.url}/v1/messages`);
    assert.equal(wrongMethod.status, 405);
    assert.match(wrongMethod.headers.get('request-id') ?? '', ID);

    const openaiError = await openai.chat.completions.create({ model: 'nope', messages: [{ role: 'user', content: 'hi' }] }).catch((error: unknown) => error);
    assert.ok(openaiError instanceof OpenAI.NotFoundError);
    assert.match(openaiError.requestID ?? '', ID);
    const anthropicError = await anthropic.messages.create({ model: 'nope', ...ask('hi') }).catch((error: unknown) => error);
    assert.ok(anthropicError instanceof Anthropic.NotFoundError);
    assert.match(anthropicError.requestID ?? '', ID);
  });

  it('relays the provider’s id of a refusal beside Tollgate’s own', async () => {
    stack.openai.failNext({ status: 400, message: 'bad thing' });
    const refused = await postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'gpt', messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${TEST_KEY}` });
    assert.equal(refused.status, 400);
    assert.match(refused.headers.get('x-request-id') ?? '', ID);
    assert.equal(refused.headers.get('x-upstream-request-id'), stack.openai.requests.at(-1)!.requestId);
  });

  it('writes the answer’s id in its ledger line', async () => {
    const { _request_id } = await openai.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'bill me' }] });
    const ledger = join(dir, 'state.json.ledger');
    const lines = readdirSync(ledger).sort().flatMap((name) => readFileSync(join(ledger, name), 'utf8').trim().split('\n')).map((line) => JSON.parse(line) as { t: string; requestId?: string });
    const settlement = lines.filter((line) => line.t === 'settle').at(-1);
    assert.equal(settlement?.requestId, _request_id);
  });

  it('writes the answer’s id in the Redis ledger stream too', async () => {
    const redis = await RedisServer.start();
    const prefix = 'ids:';
    // ledger: false keeps the organization's stream untrimmed, to be read here.
    const redisStack = await startStack({ store: { kind: 'redis', url: redis.url, prefix, ledger: false } });
    const client = new Redis(redis.url);
    try {
      const viaRedis = new OpenAI({ baseURL: `${redisStack.gateway.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
      const { _request_id } = await viaRedis.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'bill me' }] });
      // The settlement is written once the answer has gone out: wait for it (at most 2 s).
      let settlement: Record<string, string | undefined> | undefined;
      for (let tries = 0; !settlement && tries < 40; tries++) {
        const entries = await client.xrange(`${prefix}{acme}:ledger`, '-', '+');
        settlement = entries.map(([, fields]) => Object.fromEntries(fields.flatMap((value, index) => (index % 2 === 0 ? [[value, fields[index + 1]]] : [])))).filter((entry) => entry.t === 'settle').at(-1);
        if (!settlement) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.match(_request_id ?? '', ID);
      assert.equal(settlement?.requestId, _request_id);
    } finally {
      client.disconnect();
      await redisStack.close();
      await redis.close();
    }
  });
});
