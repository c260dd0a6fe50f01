import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN_KEY, ConsoleClient, TEST_KEY, chat, startConsoleStack, writeLedgerFile } from './console-fixture.js';

const DAY = 86_400_000;

/** One settlement line as the ledger writes it. */
function settlement(id: string, at: number, org: string, cost: number): string {
  return JSON.stringify({ t: 'settle', id, at, org, keyId: `${org}-app`, alias: 'gpt', in: 12, out: 40, included: 0, cost, requestId: `req_${id}`, route: 'openai/gpt-4o-mini' });
}

/**
 * The overview summed 30 days of every organization's settlements on every load: its cost grew with the
 * installation's traffic, and an admin reloading it re-read gigabytes. Each ledger file is summed once per size now.
 */
describe('the console charts sum each ledger file once', function () {
  this.timeout(30_000);
  let stack: Awaited<ReturnType<typeof startConsoleStack>>;
  afterEach(async () => stack?.close());

  it("a day's file the ledger no longer appends to is not read again: rewritten in place (same size), the charts stay as first summed", async () => {
    stack = await startConsoleStack();
    assert.equal(await chat(stack.url, TEST_KEY), 200);
    const ledgerDir = join(stack.dir, 'state.json.ledger');
    const yesterday = Math.floor(Date.now() / DAY) * DAY - DAY;
    const file = writeLedgerFile(ledgerDir, yesterday, `${[settlement('a', yesterday + 1000, 'acme', 1_000_000), settlement('b', yesterday + 2000, 'broke', 7_000_000)].join('\n')}\n`);
    const client = new ConsoleClient(stack.url);
    await client.login(ADMIN_KEY);
    const spentYesterday = async () => {
      const overview = await client.request('GET', '/api/orgs/acme');
      assert.equal(overview.status, 200, JSON.stringify(overview.body));
      return overview.body.activity.days.at(-2).costUsd as number;
    };
    // Twenty loads at once share one pass; every one shows acme's 1 USD, none broke's 7.
    assert.deepEqual(new Set(await Promise.all(Array.from({ length: 20 }, spentYesterday))), new Set([1]));
    // The same bytes' count with other costs: a load that read the file again would show 9 USD.
    writeFileSync(file, readFileSync(file, 'utf8').replace('"cost":1000000', '"cost":9000000'));
    assert.equal(await spentYesterday(), 1);
  });

  it('the file the ledger appends to is summed again once it grew: today\'s new settlement shows at the next load', async () => {
    stack = await startConsoleStack();
    const client = new ConsoleClient(stack.url);
    assert.equal(await chat(stack.url, TEST_KEY), 200);
    await client.login(ADMIN_KEY);
    const requestsToday = async () => (await client.request('GET', '/api/orgs/acme')).body.activity.days.at(-1).requests as number;
    const before = await requestsToday();
    assert.equal(await chat(stack.url, TEST_KEY), 200);
    const until = Date.now() + 10_000;
    while ((await requestsToday()) !== before + 1) {
      assert.ok(Date.now() < until, 'the second settlement never showed');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
});
