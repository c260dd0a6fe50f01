import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ADMIN_KEY, ConsoleClient, TEST_KEY, chat, startConsoleStack, writeLedgerFile } from './console-fixture.js';

const DAY = 86_400_000;
const LINES_A_DAY = 20;

/** Settlements of the days before today, one ledger file a day as the ledger names them (`<stamp>-0001.jsonl`). */
function writeDays(ledgerDir: string, now: number, days: number[]): void {
  const today = Math.floor(now / DAY) * DAY;
  for (const day of days) {
    const start = today - day * DAY;
    const lines: string[] = [];
    for (let i = 0; i < LINES_A_DAY; i++) {
      const at = start + Math.floor((i * DAY) / LINES_A_DAY);
      lines.push(JSON.stringify({ t: 'settle', id: `old-${day}-${i}`, at, org: i % 2 ? 'acme' : 'broke', keyId: i % 2 ? 'acme-app' : 'broke-app', alias: 'gpt', in: 12, out: 40, included: 0, cost: 430, requestId: `req_${day}_${i}`, route: 'openai/gpt-4o-mini' }));
    }
    writeLedgerFile(ledgerDir, start, `${lines.join('\n')}\n`);
  }
}

describe('the console ledger after months of traffic', () => {
  let stack: Awaited<ReturnType<typeof startConsoleStack>>;
  afterEach(async () => stack?.close());

  it('reads its pages from the newest file back: page 0 answers although a file of months ago is damaged', async () => {
    stack = await startConsoleStack();
    assert.equal(await chat(stack.url, TEST_KEY), 200);
    const ledgerDir = join(stack.dir, 'state.json.ledger');
    writeDays(ledgerDir, Date.now(), [1, 2, 3]);
    // A file of three months ago that a page of today must never need (it used to read the whole history).
    writeLedgerFile(ledgerDir, Date.now() - 90 * DAY, '{"t":"settle","at":\u0000\n');
    assert.equal(await chat(stack.url, TEST_KEY), 200);
    const client = new ConsoleClient(stack.url);
    await client.login(ADMIN_KEY);

    const first = await client.request('GET', '/api/orgs/acme/ledger?page=0');
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const ids = (page: { rows: { requestId: string | null }[] }) => page.rows.map((row) => row.requestId);
    // Today's two settlements, then acme's ten of each earlier day, newest first, across the files.
    assert.equal(first.body.rows.length, 25);
    assert.equal(first.body.hasOlder, true);
    assert.deepEqual(ids(first.body).slice(2, 5), ['req_1_19', 'req_1_17', 'req_1_15']);
    assert.deepEqual(ids(first.body).slice(11, 13), ['req_1_1', 'req_2_19']);
    assert.equal(ids(first.body)[24], 'req_3_15');
  });

  it('reads no file older than the charts\' 30 days for an organization with fewer settlements than a page', async () => {
    stack = await startConsoleStack();
    assert.equal(await chat(stack.url, TEST_KEY), 200);
    const ledgerDir = join(stack.dir, 'state.json.ledger');
    // Months of history before the charted days (other organizations' traffic, acme's old settlements), and a damaged
    // file among them: a page of a quiet organization used to read all of it, the page's cost growing with the age.
    writeDays(ledgerDir, Date.now(), [40, 41]);
    writeLedgerFile(ledgerDir, Date.now() - 90 * DAY, '{"t":"settle","at":\u0000\n');
    const client = new ConsoleClient(stack.url);
    await client.login(ADMIN_KEY);
    const page = await client.request('GET', '/api/orgs/acme/ledger?page=0');
    assert.equal(page.status, 200, JSON.stringify(page.body));
    assert.equal(page.body.rows.length, 1, 'today\'s settlement only');
    assert.equal(page.body.hasOlder, false);
  });
});
