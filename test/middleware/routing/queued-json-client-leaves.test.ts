import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import type { ConfigInput } from '@tollgate/middleware';
import { startGateway, TEST_KEY, type RunningGateway } from '../../support/gateway.js';
import { startScripted } from '../../support/scripted-provider.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A JSON model call waiting for an upstream connection (the provider's pool, `relay.connections`, is busy) whose
 * client leaves must let go of its concurrency slot and reservation at once, as a stream does (README "Relay
 * limits": a client that leaves frees its slot; the upstream request is cancelled). It held them until a
 * connection freed — up to relay.attemptDeadlineMs (30 minutes) — so the organization's later requests were
 * refused `429 rate_limited` for slots of clients long gone.
 */
describe('a JSON call queued for an upstream connection whose client leaves', function () {
  this.timeout(15_000);
  let gateway: RunningGateway;
  let provider: Awaited<ReturnType<typeof startScripted>>;
  const held: ServerResponse[] = [];

  before(async () => {
    // Holds every request it gets: the one connection the pool may open stays busy.
    provider = await startScripted((_req, res) => void held.push(res));
    const config: ConfigInput = {
      defaultCatalog: false,
      keys: [{ key: TEST_KEY, org: 'acme' }],
      organizations: { acme: { wallet: 10, limits: { concurrency: 2 } } },
      relay: { connections: 1 } as ConfigInput['relay'],
      providers: { p: { kind: 'openai', baseUrl: provider.baseUrl, apiKey: 'sk-fake', maxRetries: 0 } },
      models: { m: { routes: [{ provider: 'p', model: 'gpt-4o' }], price: { input: 1, output: 1 } } },
    };
    gateway = await startGateway(config);
  });
  after(async () => {
    await gateway.close();
    await provider.close();
  });

  const post = (signal: AbortSignal) =>
    fetch(`${gateway.url}/v1/chat/completions`, { signal, method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` }, body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }) }).then(
      (r) => r.status,
      () => 'left',
    );

  it('frees its slot as soon as its client leaves, so the organization can send another request', async () => {
    const first = new AbortController();
    const queued = new AbortController();
    const running = post(first.signal);
    await sleep(200);
    const waiting = post(queued.signal);
    await sleep(200);
    assert.equal(provider.count, 1, 'the second call waits for the one upstream connection');
    assert.equal((await gateway.gate.admin.usage('acme')).inFlight, 2);

    queued.abort();
    assert.equal(await waiting, 'left');
    await sleep(300);
    assert.equal((await gateway.gate.admin.usage('acme')).inFlight, 1, 'the departed client still holds a concurrency slot');

    // The organization's second slot is free again: a new call is admitted (not 429) and waits its turn.
    const third = new AbortController();
    const next = post(third.signal);
    const status = await Promise.race([next, sleep(500).then(() => 'admitted and waiting')]);
    assert.equal(status, 'admitted and waiting', `a new call was answered ${status}`);

    third.abort();
    first.abort();
    await Promise.all([running, next]);
  });
});
