import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import type { StoredAnswer } from '../../../packages/middleware/src/idempotency/index.js';
import { RedisIdempotencyStore } from '../../../packages/middleware/src/store/redis-idempotency-store.js';
import { idempotencyKey } from '../../../packages/middleware/src/store/redis-keys.js';
import { RedisServer } from '../../support/redis-server.js';
import { startStack, TEST_KEY } from '../gateway/gateway-fixture.js';

const answerOf = (bytes: number): StoredAnswer => ({ status: 200, headers: [['content-type', 'application/json']], body: Buffer.alloc(bytes, 0x61) });

/**
 * README "Idempotency keys": a key holder sending fresh Idempotency-Keys with large answers must not grow Redis
 * for a day; `idempotency.maxEntries` and `maxBytes` bound each organization's kept answers there, oldest first.
 */
describe('Redis idempotency records stay within maxEntries and maxBytes per organization', function () {
  let server: RedisServer;
  let redis: Redis;
  let prefix: string;
  const clients: Redis[] = [];
  const store = (bounds: { maxEntries: number; maxBytes: number }) => {
    const client = new Redis(server.url);
    clients.push(client);
    return new RedisIdempotencyStore(client, prefix, bounds);
  };
  /** The idempotency records Redis holds for an organization, and their bytes as Redis counts them. */
  const held = async (org: string) => {
    const keys = await redis.keys(`${prefix}{${org}}:idem:*`);
    let bytes = 0;
    for (const key of keys) bytes += (await redis.memory('USAGE', key)) ?? 0;
    return { records: keys.length, bytes };
  };
  const keep = async (subject: RedisIdempotencyStore, org: string, key: string, answer: StoredAnswer | undefined) => {
    const claim = await subject.begin(org, key, 'fp');
    assert.equal(claim.state, 'claimed', key);
    if (claim.state === 'claimed') await subject.complete(org, key, claim.token, answer);
  };

  before(async () => {
    server = await RedisServer.start();
    redis = new Redis(server.url);
  });
  beforeEach(() => {
    prefix = `b${Math.random().toString(36).slice(2)}:`;
  });
  afterEach(() => {
    for (const client of clients.splice(0)) client.disconnect();
  });
  after(async () => {
    redis.disconnect();
    await server.close();
  });

  it('200 fresh keys with 20 KB answers leave at most maxEntries records; the newest replay, the oldest run again', async () => {
    const subject = store({ maxEntries: 20, maxBytes: 64 * 1_048_576 });
    for (let i = 0; i < 200; i++) await keep(subject, 'acme', `fresh-${i}`, answerOf(20_000));
    const { records, bytes } = await held('acme');
    assert.equal(records, 20, 'the newest 20 answers are kept, the 180 before them dropped');
    assert.ok(bytes < 25 * 21_000, `Redis holds ${bytes} bytes of records`);
    assert.deepEqual(await subject.begin('acme', 'fresh-199', 'fp'), { state: 'done', answer: answerOf(20_000) });
    assert.deepEqual(await subject.begin('acme', 'fresh-180', 'fp'), { state: 'done', answer: answerOf(20_000) });
    assert.equal((await subject.begin('acme', 'fresh-179', 'fp')).state, 'claimed', 'dropped: a repeat runs again');
  });

  it('past maxBytes the oldest answers go, answers too large to keep count as entries, and other organizations keep theirs', async () => {
    const subject = store({ maxEntries: 1_000, maxBytes: 100_000 });
    await keep(subject, 'other', 'theirs', answerOf(90_000));
    for (let i = 0; i < 50; i++) await keep(subject, 'acme', `large-${i}`, answerOf(30_000));
    assert.equal((await held('acme')).records, 3, 'three 30 KB answers fit in 100 KB');
    assert.deepEqual(await subject.begin('other', 'theirs', 'fp'), { state: 'done', answer: answerOf(90_000) });
    const entries = store({ maxEntries: 5, maxBytes: 100_000 });
    for (let i = 0; i < 30; i++) await keep(entries, 'notkept', `too-large-${i}`, undefined);
    assert.equal((await held('notkept')).records, 5);
  });

  it('never drops a running claim, however full: its repeat answers running, not a second run', async () => {
    const subject = store({ maxEntries: 3, maxBytes: 1_000_000 });
    const running = await subject.begin('acme', 'long', 'fp');
    assert.equal(running.state, 'claimed');
    for (let i = 0; i < 10; i++) await keep(subject, 'acme', `short-${i}`, answerOf(100));
    assert.deepEqual(await subject.begin('acme', 'long', 'fp'), { state: 'running' });
    // A kept answer whose TTL ran out, claimed anew: the old index entry must not delete the new claim.
    const expired = idempotencyKey(prefix, 'acme', createHash('sha256').update('short-9').digest('hex'));
    await redis.del(expired);
    const again = await subject.begin('acme', 'short-9', 'fp');
    assert.equal(again.state, 'claimed');
    for (let i = 10; i < 20; i++) await keep(subject, 'acme', `short-${i}`, answerOf(100));
    assert.deepEqual(await subject.begin('acme', 'short-9', 'fp'), { state: 'running' });
    assert.deepEqual(await subject.begin('acme', 'long', 'fp'), { state: 'running' });
    assert.equal((await held('acme')).records, 3 + 2, 'three kept answers and the two running claims');
  });

  it('through the gateway: an SDK client sending fresh keys leaves at most maxEntries records in Redis, and its newest key is replayed', async () => {
    const stack = await startStack({ store: { kind: 'redis', url: server.url, prefix, ledger: false }, idempotency: { maxEntries: 5, maxBytes: 64 * 1_048_576, maxAnswerBytes: 4 * 1_048_576 } });
    try {
      const client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${stack.gateway.url}/v1`, maxRetries: 0 });
      // openai 6.x sends the `idempotencyKey` option only for a client with an idempotency header name: a header here.
      const ask = (key: string) => client.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'one two three' }] }, { headers: { 'Idempotency-Key': key } }).withResponse();
      for (let i = 0; i < 40; i++) await ask(`sdk-${i}`);
      assert.equal((await held('acme')).records, 5);
      const calls = stack.openai.requests.length;
      const replayed = await ask('sdk-39');
      assert.equal(replayed.response.headers.get('idempotent-replayed'), 'true');
      assert.equal(stack.openai.requests.length, calls, 'the newest answer was replayed, no upstream call');
      const rerun = await ask('sdk-0');
      assert.equal(rerun.response.headers.get('idempotent-replayed'), null);
      assert.equal(stack.openai.requests.length, calls + 1, 'the oldest was dropped: it ran again');
    } finally {
      await stack.close();
    }
  });
});
