import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConfigInput } from '@tollgate/middleware';
import { RouteBoard } from '../../../packages/middleware/src/routing/index.js';
import { readLedger } from '../../../packages/middleware/src/store/index.js';
import { startFakeOpenAI } from '../../fakes/index.js';
import { startGateway, type RunningGateway } from '../../support/gateway.js';
import { TestClock } from '../policy/policy-fixture.js';

const KEY = 'tg-routing-key-001-0123456789abcdef';

/** A deterministic random source, so a weighted split is reproducible. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

describe('routing strategies (README "Routing strategies")', () => {
  describe('ordering', () => {
    it('splits weighted traffic 3:1 within 3 percentage points over 1,000 requests', () => {
      const board = new RouteBoard(seeded(7));
      let first = 0;
      for (let i = 0; i < 1000; i++) if (board.order('gpt', 2, 'weighted', [3, 1], 0)[0] === 0) first++;
      assert.ok(Math.abs(first / 1000 - 0.75) <= 0.03, `${first} of 1000 on the weight-3 route`);
    });

    it('puts the route with fewer requests in flight first (least-busy)', () => {
      const board = new RouteBoard();
      board.order('gpt', 2, 'least-busy', [1, 1], 0);
      board.started('gpt', 0);
      assert.deepEqual(board.order('gpt', 2, 'least-busy', [1, 1], 0), [1, 0]);
      board.ended('gpt', 0, false, { failures: 3, coolDownMs: 1 }, 0);
      assert.deepEqual(board.order('gpt', 2, 'least-busy', [1, 1], 0), [0, 1]);
    });

    it('puts the route with the lower average time to first byte first (lowest-latency)', () => {
      const board = new RouteBoard();
      board.order('gpt', 2, 'lowest-latency', [1, 1], 0);
      board.firstByte('gpt', 0, 200);
      board.firstByte('gpt', 1, 50);
      assert.deepEqual(board.order('gpt', 2, 'lowest-latency', [1, 1], 0), [1, 0]);
    });
  });

  describe('through the gateway', () => {
    let gateway: RunningGateway;
    let a: Awaited<ReturnType<typeof startFakeOpenAI>>;
    let b: Awaited<ReturnType<typeof startFakeOpenAI>>;
    let clock: TestClock;
    let dir: string;

    async function start(model: Record<string, unknown>) {
      clock = new TestClock();
      dir = mkdtempSync(join(tmpdir(), 'tollgate-routing-'));
      a = await startFakeOpenAI();
      b = await startFakeOpenAI();
      const config: ConfigInput = {
        defaultCatalog: false,
        keys: [{ key: KEY, org: 'acme' }],
        organizations: { acme: { wallet: 10 } },
        providers: {
          a: { kind: 'openai', baseUrl: a.baseUrl, apiKey: 'sk-fake-openai', maxRetries: 0 },
          b: { kind: 'openai', baseUrl: b.baseUrl, apiKey: 'sk-fake-openai', maxRetries: 0 },
        },
        models: { gpt: { routes: [{ provider: 'a', model: 'gpt-4o' }, { provider: 'b', model: 'gpt-4o-mini' }], ...model } },
        store: { kind: 'memory', file: 'state.json' },
      };
      gateway = await startGateway(config, { clock, baseDir: dir });
    }
    afterEach(async () => {
      await gateway.close();
      await a.close();
      await b.close();
      rmSync(dir, { recursive: true, force: true });
    });

    const call = () =>
      fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, body: JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }] }) }).then(async (response) => ({ status: response.status, route: response.headers.get('x-tollgate-route'), body: await response.text() }));

    it('names the route taken in x-tollgate-route and in the ledger line, the fallback after a failover', async () => {
      await start({});
      const first = await call();
      assert.equal(first.route, 'a/gpt-4o', JSON.stringify(first));
      a.failNext({ status: 503 });
      const failedOver = await call();
      assert.equal(failedOver.status, 200);
      assert.equal(failedOver.route, 'b/gpt-4o-mini');
      const routes: (string | undefined)[] = [];
      for await (const line of readLedger(join(dir, 'state.json.ledger'), {})) routes.push(line.route);
      assert.deepEqual(routes, ['a/gpt-4o', 'b/gpt-4o-mini']);
    });

    it('skips a route that keeps failing during its cool-down, then tries it again', async () => {
      await start({ circuitBreaker: { failures: 2, coolDownMs: 10_000 } });
      a.failNext({ status: 503, times: 2 });
      assert.equal((await call()).route, 'b/gpt-4o-mini');
      assert.equal((await call()).route, 'b/gpt-4o-mini');
      assert.equal(a.requests.length, 2);
      // Out for 10 s: not even tried.
      assert.equal((await call()).route, 'b/gpt-4o-mini');
      assert.equal(a.requests.length, 2);
      clock.advance(10_001);
      assert.equal((await call()).route, 'a/gpt-4o');
      assert.equal(a.requests.length, 3);
    });

    it('takes a route out for at most its cool-down after the clock steps back a day, then tries it again', async () => {
      await start({ circuitBreaker: { failures: 2, coolDownMs: 10_000 } });
      a.failNext({ status: 503, times: 2 });
      assert.equal((await call()).route, 'b/gpt-4o-mini');
      assert.equal((await call()).route, 'b/gpt-4o-mini');
      clock.advance(-24 * 3_600_000); // an NTP correction of a clock a day fast
      assert.equal((await call()).route, 'b/gpt-4o-mini', 'still resting');
      clock.advance(10_001);
      assert.equal((await call()).route, 'a/gpt-4o', 'its cool-down is over, not a day from now');
      assert.equal(a.requests.length, 3);
    });

    it('measures time to first byte on a clock that does not step: a jump of a month during a call does not banish its route (lowest-latency)', async () => {
      await start({ strategy: 'lowest-latency' });
      a.delay(50);
      b.delay(1_000);
      // Both unmeasured: a first. The wall clock jumps a month while a's first byte is awaited.
      const first = call();
      while (a.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      clock.advance(31 * 24 * 3_600_000);
      assert.equal((await first).route, 'a/gpt-4o');
      assert.equal((await call()).route, 'b/gpt-4o-mini', 'b, unmeasured, is measured next');
      // a answers in ~50 ms, b in ~1 s: a is the lower average.
      assert.equal((await call()).route, 'a/gpt-4o');
      assert.equal((await call()).route, 'a/gpt-4o');
    });

    it('splits weighted traffic across routes by weight', async () => {
      await start({ strategy: 'weighted', routes: [{ provider: 'a', model: 'gpt-4o', weight: 3 }, { provider: 'b', model: 'gpt-4o-mini', weight: 1 }] });
      const routes: (string | null)[] = [];
      for (let batch = 0; batch < 10; batch++) routes.push(...(await Promise.all(Array.from({ length: 20 }, call))).map((r) => r.route));
      const onA = routes.filter((route) => route === 'a/gpt-4o').length;
      assert.equal(routes.length, 200);
      // 200 requests: 150 expected; ±25 is more than 3 standard deviations (6.1).
      assert.ok(Math.abs(onA - 150) <= 25, `${onA} of 200 on the weight-3 route`);
    });
  });
});
