import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SettlementRetry } from '../../../packages/middleware/src/policy/settlement-retry.js';
import { RedisServer } from '../../support/redis-server.js';
import { postJson } from '../../support/gateway.js';
import { startStack, TEST_KEY } from '../gateway/gateway-fixture.js';

/**
 * A request whose admission Redis did not answer (hung, loading its data, refusing writes on a full disk) is
 * answered 503 and its admission released, in case it ran. A release Redis did not take was kept like a
 * settlement: fsynced into the pending file and held in memory, one per refused request, so the outage's traffic
 * grew both. A release charges nothing: now it waits in memory only, bounded.
 */
describe('releases of refused admissions during a Redis outage are bounded', function () {
  this.timeout(60_000);

  it('a hung Redis: 150 refused requests write nothing to the pending file, and the concurrency slots are free once it is back', async () => {
    const redis = await RedisServer.start();
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-releases-'));
    const pendingFile = join(dir, 'pending-settlements.jsonl');
    const stack = await startStack({
      store: { kind: 'redis', url: redis.url, pendingFile, ledger: false },
      organizations: { acme: { wallet: 100, limits: { concurrency: 5 } } },
      policyTimeoutMs: 200,
    });
    const chat = () => postJson(`${stack.gateway.url}/v1/chat/completions`, { model: 'gpt', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 8 }, { authorization: `Bearer ${TEST_KEY}` });
    try {
      assert.equal((await chat()).status, 200);
      redis.pause();
      const refused: number[] = [];
      for (let round = 0; round < 3; round++) refused.push(...(await Promise.all(Array.from({ length: 50 }, chat))).map((answer) => answer.status));
      assert.deepEqual([...new Set(refused)], [503]);
      const lines = existsSync(pendingFile) ? readFileSync(pendingFile, 'utf8').split('\n').filter(Boolean).length : 0;
      assert.equal(lines, 0, 'no line in the pending file for a refused request (there were one per request)');
      redis.resume();
      // The admissions Redis ran once it woke up are released (those on the hung connection when it was dropped
      // are sent again once it is back; until it has reconnected, usage too answers policy_unavailable).
      const inFlight = () => stack.gateway.gate.admin.usage('acme').then((usage) => usage.inFlight, () => Infinity);
      const deadline = Date.now() + 10_000;
      while ((await inFlight()) > 0) {
        assert.ok(Date.now() < deadline, 'the slots of the refused requests came back');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const after = await Promise.all(Array.from({ length: 5 }, chat));
      assert.deepEqual(after.map((answer) => answer.status), [200, 200, 200, 200, 200]);
    } finally {
      redis.resume();
      await stack.close();
      await redis.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('at most the bound of releases waits; past it they are dropped with one log line, and once delivered new ones wait again', async () => {
    let reachable = false;
    const sent: string[] = [];
    const errors: string[] = [];
    const retry = new SettlementRetry<{ id: string }>(
      {
        waiting: [],
        resend: async (release) => {
          if (!reachable) throw new Error('Command timed out');
          sent.push(release.id);
        },
      },
      { error: (message) => errors.push(message) },
      5,
    );
    for (let i = 0; i < 50; i++) await retry.deferRelease({ id: `r${i}` });
    assert.equal(errors.length, 1, 'one line for the dropped releases');
    reachable = true;
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    assert.deepEqual(sent, ['r0', 'r1', 'r2', 'r3', 'r4']);
    await retry.deferRelease({ id: 'r50' });
    await retry.close();
    assert.deepEqual(sent.slice(5), ['r50'], 'delivered: the bound has room again');
  });
});
