import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ADMIN_KEY, ConsoleClient, TEST_KEY, chat, startConsoleStack, writeLedgerFile } from './console-fixture.js';

const DAY = 86_400_000;

/**
 * A ledger page holds up to (page + 1) × 25 lines while it reads its files: one admin asking for page 39 a thousand
 * times at once held a million lines. An organization's pages read at once are bounded (four).
 */
describe("an organization's console ledger pages read at once", function () {
  this.timeout(60_000);
  let stack: Awaited<ReturnType<typeof startConsoleStack>>;
  afterEach(async () => stack?.close());

  it('past four at once answers 429 rate_limited with Retry-After; the others answer their page, and a page reads after', async () => {
    stack = await startConsoleStack();
    assert.equal(await chat(stack.url, TEST_KEY), 200);
    const ledgerDir = join(stack.dir, 'state.json.ledger');
    // Yesterday's file: 40,000 of acme's settlements, so that a page takes a while to read.
    const yesterday = Math.floor(Date.now() / DAY) * DAY - DAY;
    const lines = Array.from({ length: 40_000 }, (_, i) => JSON.stringify({ t: 'settle', id: `s${i}`, at: yesterday + i, org: 'acme', keyId: 'acme-app', alias: 'gpt', in: 12, out: 40, included: 0, cost: 430, requestId: `req_${i}`, route: 'openai/gpt-4o-mini' }));
    writeLedgerFile(ledgerDir, yesterday, `${lines.join('\n')}\n`);
    const client = new ConsoleClient(stack.url);
    await client.login(ADMIN_KEY);

    const pages = await Promise.all(Array.from({ length: 40 }, () => client.request('GET', '/api/orgs/acme/ledger?page=39')));
    const statuses = pages.map((page) => page.status);
    assert.ok(statuses.every((status) => status === 200 || status === 429), statuses.join(' '));
    assert.ok(statuses.filter((status) => status === 200).length >= 4, statuses.join(' '));
    const refused = pages.filter((page) => page.status === 429);
    assert.ok(refused.length > 0, `all 40 were read at once: ${statuses.join(' ')}`);
    assert.equal(refused[0]!.body.error.code, 'rate_limited');
    assert.equal(refused[0]!.headers.get('retry-after'), '1');
    for (const page of pages.filter((p) => p.status === 200)) assert.equal(page.body.rows.length, 25);
    const after = await client.request('GET', '/api/orgs/acme/ledger?page=39');
    assert.equal(after.status, 200);
  });
});
