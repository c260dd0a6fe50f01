import assert from 'node:assert/strict';
import { UnsentFinishes } from '../../../packages/middleware/src/store/unsent-finishes.js';
import { RedisServer } from '../../support/redis-server.js';
import { postJson, startGateway } from '../../support/gateway.js';
import { chatCompletion, sendJson, startScripted } from '../../support/scripted-provider.js';
import { waitUntil } from '../../support/stalled-client.js';
import { gatewayConfig, TEST_KEY } from '../gateway/gateway-fixture.js';

/**
 * An Idempotency-Key's record is claimed before its request runs and finished (its answer kept, or the key freed)
 * once it ended. A Redis that went away in between lost the finish: the claim stayed "running" for as long as a
 * running claim is kept (31 minutes by default), so the client's retry of a request that was answered and billed
 * got 409 idempotency_key_in_use all that time — and ran, billed a second time, once the claim expired.
 */
describe('Idempotency-Key records across a Redis outage during the request', function () {
  this.timeout(60_000);

  it('keeps the answer once Redis is back: the retry gets it replayed, billed once', async () => {
    const redis = await RedisServer.start();
    let outage = true;
    const provider = await startScripted(async (_req, res) => {
      if (outage) await redis.stop(); // Redis dies while the request runs, after its admission and claim
      sendJson(res, 200, chatCompletion('kept', { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 }));
    });
    const gateway = await startGateway(gatewayConfig({ openai: provider, anthropic: provider } as never, { store: { kind: 'redis', url: redis.url, ledger: false } }));
    const chat = () => postJson(`${gateway.url}/v1/chat/completions`, { model: 'gpt', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 8 }, { authorization: `Bearer ${TEST_KEY}`, 'idempotency-key': 'outage-1' });
    try {
      const first = await chat();
      assert.equal(first.status, 200, first.text);
      outage = false;
      await redis.restart();
      const usage = () => gateway.gate.admin.usage('acme').then((report) => report.requests, () => -1);
      await waitUntil('the settlement reached Redis', async () => (await usage()) === 1, 10_000);
      let retry = await chat();
      // The finish is sent again as settlements are; until it lands the key is still running (409, retryable).
      const deadline = Date.now() + 10_000;
      while (retry.status === 409 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        retry = await chat();
      }
      assert.equal(retry.status, 200, retry.text);
      assert.equal(retry.headers.get('idempotent-replayed'), 'true');
      assert.equal(retry.body.choices[0].message.content, 'kept');
      assert.equal(provider.count, 1, 'the provider was called once');
      assert.equal(await usage(), 1, 'billed once');
    } finally {
      await gateway.close();
      await provider.close();
      await redis.close();
    }
  });

  it('holds at most maxEntries finishes and maxBytes of answers while Redis is away, and sends those once it is back', async () => {
    let reachable = false;
    const sent: unknown[] = [];
    const unsent = new UnsentFinishes(
      async (finish) => {
        if (!reachable) throw new Error('Connection is closed.');
        sent.push(finish.args[0]);
      },
      { maxEntries: 3, maxBytes: 100 },
    );
    unsent.keep({ args: ['big'], bytes: 101 }); // larger than all the room: dropped
    for (let i = 0; i < 5; i++) unsent.keep({ args: [`k${i}`], bytes: 10 });
    await new Promise((resolve) => setTimeout(resolve, 1_300)); // one resend round, refused: all are kept
    reachable = true;
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    assert.deepEqual(sent, ['k0', 'k1', 'k2']);
    unsent.keep({ args: ['k5'], bytes: 10 });
    await unsent.close();
    assert.deepEqual(sent.slice(3), ['k5'], 'sent: the bound has room again');
  });
});
