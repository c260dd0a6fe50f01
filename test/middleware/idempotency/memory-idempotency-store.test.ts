import assert from 'node:assert/strict';
import { MemoryIdempotencyStore } from '../../../packages/middleware/src/idempotency/index.js';
import { TestClock } from '../policy/policy-fixture.js';

const answer = (body: string) => ({ status: 200, headers: [['content-type', 'application/json']] as [string, string][], body: Buffer.from(body) });

async function finished(store: MemoryIdempotencyStore, org: string, key: string, body = '{}') {
  const claim = await store.begin(org, key, 'f');
  assert.equal(claim.state, 'claimed');
  if (claim.state === 'claimed') await store.complete(org, key, claim.token, answer(body));
}

describe('memory idempotency records: bounded in entries, bytes and time', () => {
  it('forgets the least recently used key past maxEntries', async () => {
    const store = new MemoryIdempotencyStore(new TestClock(), { maxEntries: 2, maxBytes: 1_000_000 });
    await finished(store, 'acme', 'a');
    await finished(store, 'acme', 'b');
    assert.equal((await store.begin('acme', 'a', 'f')).state, 'done'); // a is now the most recent
    await finished(store, 'acme', 'c');
    assert.equal(store.size, 2);
    assert.equal((await store.begin('acme', 'a', 'f')).state, 'done');
    assert.equal((await store.begin('acme', 'b', 'f')).state, 'claimed', 'b was evicted');
  });

  it('keeps the answer of a long request that finished last over answers that finished before it', async () => {
    // The long request's client is the one most likely to have given up and to retry: its answer is the most
    // recently used, not the oldest because its claim came first.
    const store = new MemoryIdempotencyStore(new TestClock(), { maxEntries: 3, maxBytes: 1_000_000 });
    const long = await store.begin('acme', 'long', 'f');
    assert.equal(long.state, 'claimed');
    await finished(store, 'acme', 'b');
    await finished(store, 'acme', 'c');
    if (long.state === 'claimed') await store.complete('acme', 'long', long.token, answer('{"late":true}'));
    await finished(store, 'acme', 'd');
    assert.equal(store.size, 3);
    assert.equal((await store.begin('acme', 'long', 'f')).state, 'done', 'the late answer is kept');
    assert.equal((await store.begin('acme', 'b', 'f')).state, 'claimed', 'b, the least recently used, was dropped');
  });

  it('past maxEntries, drops the least recently used answer of an organization past its share, not an older one within its share', async () => {
    const store = new MemoryIdempotencyStore(new TestClock(), { maxEntries: 4, maxBytes: 1_000_000 });
    await finished(store, 'quiet', 'q1');
    await finished(store, 'busy', 'b1');
    await finished(store, 'busy', 'b2');
    await finished(store, 'busy', 'b3');
    await finished(store, 'busy', 'b4');
    assert.equal(store.size, 4);
    assert.equal((await store.begin('quiet', 'q1', 'f')).state, 'done', 'the oldest, but its organization holds 1 of its share of 2');
    assert.equal((await store.begin('busy', 'b1', 'f')).state, 'claimed', 'busy\'s oldest went');
  });

  it('past maxBytes, drops answers of the organization holding more than its share of the bytes', async () => {
    const store = new MemoryIdempotencyStore(new TestClock(), { maxEntries: 100, maxBytes: 1_000 });
    await finished(store, 'quiet', 'q1', 'x'.repeat(300));
    await finished(store, 'busy', 'big1', 'x'.repeat(400));
    await finished(store, 'busy', 'big2', 'x'.repeat(400));
    assert.equal((await store.begin('quiet', 'q1', 'f')).state, 'done');
    assert.equal((await store.begin('busy', 'big1', 'f')).state, 'claimed', 'busy held 800 of 1,000 bytes, past its share of 500');
  });

  it('two organizations each within their share when the bound is reached: the one that goes past it loses its own oldest', async () => {
    const store = new MemoryIdempotencyStore(new TestClock(), { maxEntries: 4, maxBytes: 1_000_000 });
    await finished(store, 'a', 'a1');
    await finished(store, 'b', 'b1');
    await finished(store, 'a', 'a2');
    await finished(store, 'b', 'b2');
    await finished(store, 'b', 'b3');
    assert.equal(store.size, 4);
    assert.deepEqual([await store.begin('a', 'a1', 'f'), await store.begin('a', 'a2', 'f')].map((claim) => claim.state), ['done', 'done']);
    assert.equal((await store.begin('b', 'b1', 'f')).state, 'claimed');
  });

  it('never forgets a claim still running, so its repeat cannot run a second time', async () => {
    const store = new MemoryIdempotencyStore(new TestClock(), { maxEntries: 2, maxBytes: 1_000_000 });
    assert.equal((await store.begin('acme', 'running', 'f')).state, 'claimed');
    await finished(store, 'acme', 'a');
    await finished(store, 'acme', 'b');
    await finished(store, 'acme', 'c');
    assert.equal(store.size, 2, 'only finished answers were dropped past maxEntries');
    assert.equal((await store.begin('acme', 'running', 'f')).state, 'running');
  });

  it('keeps maxEntries when running claims sit ahead of replayed answers: their second chance runs out, one goes', async () => {
    const store = new MemoryIdempotencyStore(new TestClock(), { maxEntries: 5, maxBytes: 1_000_000 });
    for (const key of ['r1', 'r2', 'r3']) assert.equal((await store.begin('acme', key, 'f')).state, 'claimed');
    await finished(store, 'acme', 'a');
    await finished(store, 'acme', 'b');
    assert.equal((await store.begin('acme', 'a', 'f')).state, 'done');
    assert.equal((await store.begin('acme', 'b', 'f')).state, 'done');
    assert.equal((await store.begin('acme', 'new', 'f')).state, 'claimed');
    assert.equal(store.size, 5, 'one replayed answer was dropped once every record had been met');
    for (const key of ['r1', 'r2', 'r3', 'new']) assert.equal((await store.begin('acme', key, 'f')).state, 'running');
  });

  it('forgets the oldest answers past maxBytes', async () => {
    // Each answer holds 150 body bytes and 28 of headers: two do not fit in 300.
    const store = new MemoryIdempotencyStore(new TestClock(), { maxEntries: 100, maxBytes: 300 });
    await finished(store, 'acme', 'a', 'x'.repeat(150));
    await finished(store, 'acme', 'b', 'y'.repeat(150));
    assert.equal((await store.begin('acme', 'a', 'f')).state, 'claimed', 'a was evicted to make room for b');
  });

  it('replays for 24 hours, then runs again; keys are per organization', async () => {
    const clock = new TestClock();
    const store = new MemoryIdempotencyStore(clock, { maxEntries: 100, maxBytes: 1_000_000 });
    await finished(store, 'acme', 'a');
    assert.equal((await store.begin('other', 'a', 'f')).state, 'claimed');
    clock.advance(24 * 60 * 60_000 - 1);
    assert.equal((await store.begin('acme', 'a', 'f')).state, 'done');
    clock.advance(1);
    assert.equal((await store.begin('acme', 'a', 'f')).state, 'claimed');
  });

  it('counts a kept JSON string at the memory V8 holds for it: two bytes a character once any is not ASCII', () => {
    // 100 characters: an ASCII answer holds 100 bytes (+28 of headers) and two fit in 300; with one "é" it holds 200.
    const store = new MemoryIdempotencyStore(new TestClock(), { maxEntries: 100, maxBytes: 300 });
    const keep = (key: string, body: string) => {
      const claim = store.begin('acme', key, 'f');
      if (claim instanceof Promise || claim.state !== 'claimed') throw new Error('the memory store claims synchronously');
      store.complete('acme', key, claim.token, { status: 200, headers: [['content-type', 'application/json']], body });
    };
    keep('a', 'x'.repeat(100));
    keep('b', 'y'.repeat(100));
    assert.equal(store.size, 2, 'two ASCII answers fit');
    keep('c', `é${'z'.repeat(99)}`);
    assert.equal(store.size, 1, 'the non-ASCII answer alone fills the bound');
    const replayed = store.begin('acme', 'c', 'f');
    assert.deepEqual(replayed, { state: 'done', answer: { status: 200, headers: [['content-type', 'application/json']], body: `é${'z'.repeat(99)}` } });
  });

  it('keeps its bound and its order of use through 50,000 keys, a long-running claim included', () => {
    // Evictions read the oldest end with one iterator kept across many rehashes of the Map (see the store).
    const store = new MemoryIdempotencyStore(new TestClock(), { maxEntries: 100, maxBytes: 1_000_000 });
    const claimOf = (key: string) => {
      const claim = store.begin('acme', key, 'f');
      if (claim instanceof Promise) throw new Error('the memory store claims synchronously');
      return claim;
    };
    const long = claimOf('long-running');
    for (let i = 0; i < 50_000; i++) {
      const claim = claimOf(`k${i}`);
      if (claim.state !== 'claimed') throw new Error(`k${i} was ${claim.state}`);
      if (i % 3 === 0) store.abandon('acme', `k${i}`, claim.token);
      else store.complete('acme', `k${i}`, claim.token, answer('{}'));
      // A key replayed every 10 uses stays among the most recently used.
      if (i % 10 === 9) assert.equal(claimOf('k1').state, 'done');
      assert.ok(store.size <= 100);
    }
    assert.equal(claimOf('long-running').state, 'running', 'the running claim was never dropped');
    assert.equal(claimOf('k1').state, 'done');
    assert.equal(claimOf('k49999').state, 'done');
    assert.equal(claimOf('k49000').state, 'claimed', 'an old key was dropped');
    store.complete('acme', 'long-running', long.state === 'claimed' ? long.token : '', answer('{}'));
    assert.equal(claimOf('long-running').state, 'done');
  });

  it('never loses a running claim, replays only the answer kept for a key, and holds maxEntries after every claim (200 seeded random runs)', () => {
    for (let seed = 1; seed <= 200; seed++) {
      let state = seed;
      const random = (n: number) => {
        state = (state * 1103515245 + 12345) & 0x7fffffff;
        return state % n;
      };
      const clock = new TestClock();
      const maxEntries = 1 + random(8);
      const store = new MemoryIdempotencyStore(clock, { maxEntries, maxBytes: 200 + random(400) });
      const running = new Map<string, string>();
      const kept = new Map<string, string>();
      const anyRunning = () => [...running][random(Math.max(1, running.size))];
      for (let step = 0; step < 3000; step++) {
        const where = `seed ${seed} step ${step}`;
        const action = random(10);
        if (action < 5) {
          const key = `k${random(20)}`;
          const claim = store.begin('acme', key, 'f');
          if (claim instanceof Promise) throw new Error('the memory store claims synchronously');
          if (running.has(key)) assert.equal(claim.state, 'running', `${where}: a running claim was lost`);
          else if (claim.state === 'done') assert.equal(claim.answer?.body, kept.get(key), `${where}: another key's answer`);
          else {
            assert.equal(claim.state, 'claimed', where);
            if (claim.state === 'claimed') running.set(key, claim.token);
            kept.delete(key);
            assert.ok(store.size <= Math.max(maxEntries, running.size), `${where}: ${store.size} records, maxEntries ${maxEntries}, ${running.size} running`);
          }
        } else if (action < 9) {
          const [key, token] = anyRunning() ?? [];
          if (key === undefined) continue;
          running.delete(key);
          if (action < 8) {
            const body = `${key}@${step}`.padEnd(random(120), 'x');
            store.complete('acme', key, token!, { status: 200, headers: [], body });
            kept.set(key, body);
          } else store.abandon('acme', key, token!);
        } else clock.advance(1_000); // well within every TTL
      }
    }
  });
});
