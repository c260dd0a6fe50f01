import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SmallTmpfs } from '../../support/small-tmpfs.js';
import { ADMIN_KEY, ConsoleClient, startConsoleStack } from './console-fixture.js';

/**
 * An operator's change from the console (a top-up, a new key) on a memory store whose disk is full: the journal
 * refuses it (ENOSPC) and nothing changes, but the console answered 500 "Internal server error" — no word of
 * what failed or whether the money went in — and logged it as a bug.
 */
describe('console changes on a store whose disk is full', function () {
  this.timeout(30_000);
  let disk: SmallTmpfs;
  let stack: Awaited<ReturnType<typeof startConsoleStack>> | undefined;
  beforeEach(function () {
    if (process.getuid?.() !== 0) this.skip();
    disk = SmallTmpfs.mount(256 * 1024);
  });
  afterEach(async () => {
    await stack?.close();
    stack = undefined;
    disk?.unmount();
  });

  it('answer 503 policy_unavailable naming the full disk, change nothing, and work again once there is room', async () => {
    const internal: string[] = [];
    stack = await startConsoleStack({ store: { kind: 'memory', file: join(disk.dir, 'state.json') } }, { logger: { info() {}, error: (message) => void internal.push(message) } });
    const client = new ConsoleClient(stack.url);
    assert.equal((await client.login(ADMIN_KEY)).status, 200);
    try {
      writeFileSync(join(disk.dir, 'filler'), Buffer.alloc(512 * 1024));
    } catch (error) {
      assert.equal((error as NodeJS.ErrnoException).code, 'ENOSPC');
    }
    let refused: Awaited<ReturnType<ConsoleClient['post']>> | undefined;
    for (let i = 0; i < 2_000 && !refused; i++) {
      const answer = await client.post('/api/orgs/acme/top-up', { usd: 1 });
      if (answer.status !== 200) refused = answer;
    }
    assert.ok(refused, 'the disk never filled up');
    assert.equal(refused.status, 503);
    assert.equal(refused.body.error.code, 'policy_unavailable');
    assert.match(refused.body.error.message, /ENOSPC/);
    assert.match(refused.body.error.message, /nothing was changed/);
    assert.equal(refused.headers.get('x-service-reason'), 'policy_unavailable');
    const wallet = (await client.request('GET', '/api/orgs/acme')).body.usage.wallet;

    const key = await client.post('/api/orgs/acme/keys', { scopes: ['models'] });
    assert.equal(key.status, 503);
    assert.equal(key.body.key, undefined, 'a key the store did not keep was handed out');
    assert.deepEqual(internal, [], 'a full disk was logged as an internal error');

    rmSync(join(disk.dir, 'filler'));
    const topUp = await client.post('/api/orgs/acme/top-up', { usd: 1 });
    assert.equal(topUp.status, 200);
    assert.equal(topUp.body.wallet, wallet + 1);
  });
});
