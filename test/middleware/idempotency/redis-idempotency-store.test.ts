import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { ANSWER_TTL_MS, RUNNING_TTL_MS, type StoredAnswer } from '../../../packages/middleware/src/idempotency/index.js';
import { RedisIdempotencyStore } from '../../../packages/middleware/src/store/redis-idempotency-store.js';
import { idempotencyKey } from '../../../packages/middleware/src/store/redis-keys.js';
import { RedisServer } from '../../support/redis-server.js';

/** Bytes that are not valid UTF-8, and a header sent twice: what a replay must give back exactly. */
const answer: StoredAnswer = {
  status: 201,
  headers: [
    ['content-type', 'text/event-stream'],
    ['set-cookie', ['a=1', 'b=2']],
    ['x-request-id', 'req_7'],
  ],
  body: Buffer.from([0x64, 0x61, 0x74, 0x61, 0x3a, 0xff, 0xfe, 0x00, 0x0a]),
};

describe('Redis idempotency records: one claim across instances, the answer kept as its bytes', function () {
  let server: RedisServer;
  const clients: Redis[] = [];
  let prefix: string;
  /** A store on a connection of its own, as each instance has. */
  const instance = () => {
    const client = new Redis(server.url);
    clients.push(client);
    return new RedisIdempotencyStore(client, prefix, { maxEntries: 10_000, maxBytes: 64 * 1_048_576 });
  };

  before(async () => {
    server = await RedisServer.start();
  });
  beforeEach(() => {
    prefix = `t${Math.random().toString(36).slice(2)}:`;
  });
  afterEach(() => {
    for (const client of clients.splice(0)) client.disconnect();
  });
  after(() => server.close());

  it('replays the exact bytes, status and repeated headers on another instance', async () => {
    const [a, b] = [instance(), instance()];
    const claim = await a.begin('acme', 'k', 'fp');
    assert.equal(claim.state, 'claimed');
    if (claim.state === 'claimed') await a.complete('acme', 'k', claim.token, answer);
    const seen = await b.begin('acme', 'k', 'fp');
    assert.deepEqual(seen, { state: 'done', answer });
    assert.deepEqual(await b.begin('acme', 'k', 'other'), { state: 'mismatch' });
    assert.equal((await b.begin('other-org', 'k', 'fp')).state, 'claimed', 'keys are per organization');
  });

  it('lets exactly one of many concurrent claims across two instances run', async () => {
    const [a, b] = [instance(), instance()];
    const claims = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).begin('acme', 'race', 'fp')));
    assert.equal(claims.filter((c) => c.state === 'claimed').length, 1);
    assert.equal(claims.filter((c) => c.state === 'running').length, 39);
  });

  it('remembers an answer too large to keep as finished, never to run again', async () => {
    const store = instance();
    const claim = await store.begin('acme', 'big', 'fp');
    if (claim.state === 'claimed') await store.complete('acme', 'big', claim.token, undefined);
    assert.deepEqual(await store.begin('acme', 'big', 'fp'), { state: 'done', answer: undefined });
  });

  it('lets only the claim holder keep or free the key', async () => {
    const store = instance();
    const claim = await store.begin('acme', 'held', 'fp');
    assert.equal(claim.state, 'claimed');
    await store.complete('acme', 'held', 'not-the-token', answer);
    await store.abandon('acme', 'held', 'not-the-token');
    assert.deepEqual(await store.begin('acme', 'held', 'fp'), { state: 'running' });
    if (claim.state === 'claimed') await store.abandon('acme', 'held', claim.token);
    assert.equal((await store.begin('acme', 'held', 'fp')).state, 'claimed', 'freed: a retry runs');
  });

  it('holds a running claim for 15 minutes and an answer for 24 hours, then Redis forgets it', async () => {
    const store = instance();
    const redis = new Redis(server.url);
    clients.push(redis);
    const key = idempotencyKey(prefix, 'acme', createHash('sha256').update('ttl').digest('hex'));
    const claim = await store.begin('acme', 'ttl', 'fp');
    const running = await redis.pttl(key);
    assert.ok(running > RUNNING_TTL_MS - 60_000 && running <= RUNNING_TTL_MS, `running TTL ${running}`);
    if (claim.state === 'claimed') await store.complete('acme', 'ttl', claim.token, answer);
    const kept = await redis.pttl(key);
    assert.ok(kept > ANSWER_TTL_MS - 60_000 && kept <= ANSWER_TTL_MS, `answer TTL ${kept}`);
  });

  it('reads a record an earlier version wrote as a JSON string: replays it, and claims nothing over it', async () => {
    const store = instance();
    const redis = new Redis(server.url);
    clients.push(redis);
    const key = (k: string) => idempotencyKey(prefix, 'acme', createHash('sha256').update(k).digest('hex'));
    const legacyAnswer = { status: 200, headers: [['content-type', 'application/json'], ['set-cookie', 'a=1'], ['set-cookie', 'b=2']], body: Buffer.from('{"ok":true}').toString('base64') };
    await redis.set(key('old-done'), JSON.stringify({ fingerprint: 'fp', token: 't', done: true, answer: legacyAnswer }), 'PX', 60_000);
    await redis.set(key('old-running'), JSON.stringify({ fingerprint: 'fp', token: 't', done: false }), 'PX', 60_000);
    assert.deepEqual(await store.begin('acme', 'old-done', 'fp'), {
      state: 'done',
      answer: { status: 200, headers: [['content-type', 'application/json'], ['set-cookie', ['a=1', 'b=2']]], body: Buffer.from('{"ok":true}') },
    });
    assert.deepEqual(await store.begin('acme', 'old-done', 'other'), { state: 'mismatch' });
    assert.deepEqual(await store.begin('acme', 'old-running', 'fp'), { state: 'running' });
  });
});
