import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { TEST_KEY, startStack } from '../gateway/gateway-fixture.js';

const FLOOD_KEY = 'tg-flood-org-key-01-0123456789abcdef';

/**
 * The memory store's bound is one for the process (README "Idempotency keys"): an organization sending fresh keys
 * must not evict the answers another organization, within its share of it, may still need for its retries.
 */
describe('memory idempotency records: each organization keeps its share of the bound', function () {
  this.timeout(60_000);

  it('an organization sending 200 fresh keys leaves another\'s 5 kept answers replayable, unbilled, and loses its own oldest', async () => {
    const stack = await startStack({
      keys: [
        { key: TEST_KEY, org: 'acme' },
        { key: FLOOD_KEY, org: 'flood' },
      ],
      organizations: { acme: { wallet: 100 }, flood: { wallet: 100 } },
      idempotency: { maxEntries: 20, maxBytes: 64 * 1_048_576, maxAnswerBytes: 4 * 1_048_576 },
    });
    try {
      const clientOf = (apiKey: string) => new OpenAI({ apiKey, baseURL: `${stack.gateway.url}/v1`, maxRetries: 0 });
      const acme = clientOf(TEST_KEY);
      const flood = clientOf(FLOOD_KEY);
      const ask = (client: OpenAI, key: string) => client.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'one two three' }] }, { headers: { 'Idempotency-Key': key } }).withResponse();
      const first: string[] = [];
      for (let i = 0; i < 5; i++) first.push((await ask(acme, `acme-${i}`)).data.id);
      for (let i = 0; i < 200; i++) await ask(flood, `flood-${i}`);
      const calls = stack.openai.requests.length;
      const billed = (await stack.gateway.gate.admin.usage('acme')).requests;

      for (let i = 0; i < 5; i++) {
        const again = await ask(acme, `acme-${i}`);
        assert.equal(again.response.headers.get('idempotent-replayed'), 'true', `acme-${i} was evicted by the other organization's keys`);
        assert.equal(again.data.id, first[i]);
      }
      assert.equal(stack.openai.requests.length, calls, 'no retry ran again');
      assert.equal((await stack.gateway.gate.admin.usage('acme')).requests, billed, 'no retry was billed again');
      // The flooding organization's own oldest went: the bound holds.
      assert.equal((await ask(flood, 'flood-0')).response.headers.get('idempotent-replayed'), null);
    } finally {
      await stack.close();
    }
  });
});
