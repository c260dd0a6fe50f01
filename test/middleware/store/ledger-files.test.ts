import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LedgerFiles, readLedger, type LedgerLine } from '../../../packages/middleware/src/store/index.js';
import { TestClock } from '../policy/policy-fixture.js';

const line = (n: number, at: number, org = 'acme'): LedgerLine => ({ t: 'settle', id: `s-${n}`, at, org, keyId: 'k1', alias: 'gpt', in: 10, out: 20, included: 0, cost: 225 });

async function collect(dir: string, filter: Parameters<typeof readLedger>[1] = {}): Promise<string[]> {
  const ids: string[] = [];
  for await (const entry of readLedger(dir, filter)) ids.push(entry.id);
  return ids;
}

describe('ledger files (append-only settlement lines, rotated by size or UTC day)', () => {
  let root: string;
  let dir: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'tollgate-ledger-files-'));
    dir = join(root, 'ledger');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('keeps every acknowledged line, in order, across a reopen, in 0600 files in a 0700 directory', async () => {
    const clock = new TestClock();
    const ledger = await LedgerFiles.open({ dir, clock });
    await Promise.all(Array.from({ length: 300 }, (_, n) => ledger.append([line(n, clock.now())])));
    await ledger.close();
    const reopened = await LedgerFiles.open({ dir, clock });
    assert.equal(reopened.lastLine?.id, 's-299');
    await reopened.append([line(300, clock.now())]);
    await reopened.close();

    assert.deepEqual(await collect(dir), Array.from({ length: 301 }, (_, n) => `s-${n}`));
    assert.equal(readdirSync(dir).length, 1, 'the same day and size continue the same file');
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    for (const name of readdirSync(dir)) assert.equal(statSync(join(dir, name)).mode & 0o777, 0o600);
  });

  it('starts a new file at each UTC midnight and when a file would pass maxBytes', async () => {
    const clock = new TestClock(Date.parse('2026-11-22T23:59:59.000Z'));
    const ledger = await LedgerFiles.open({ dir, clock, maxBytes: 1000 });
    await ledger.append([line(1, clock.now())]);
    clock.advance(2_000); // 2026-11-23
    await ledger.append([line(2, clock.now())]);
    for (let n = 3; n < 13; n++) await ledger.append([line(n, clock.now())]);
    await ledger.close();

    const names = readdirSync(dir).sort();
    assert.match(names[0]!, /^20261122T235959000Z-0001\.jsonl$/);
    assert.match(names[1]!, /^20261123T000001000Z-0001\.jsonl$/);
    assert.ok(names.length >= 3, `size rotation: ${names.join(' ')}`);
    for (const name of names) assert.ok(statSync(join(dir, name)).size <= 1000);
    assert.deepEqual(await collect(dir), Array.from({ length: 12 }, (_, n) => `s-${n + 1}`));
  });

  it('exports a period and an organization: from inclusive, to exclusive', async () => {
    const clock = new TestClock(Date.parse('2026-11-01T00:00:00Z'));
    const ledger = await LedgerFiles.open({ dir, clock });
    for (let n = 0; n < 10; n++) {
      await ledger.append([line(n, clock.now(), n % 2 === 0 ? 'acme' : 'globex')]);
      clock.advance(86_400_000);
    }
    await ledger.close();
    const day = (d: number) => Date.parse(`2026-11-${String(d).padStart(2, '0')}T00:00:00Z`);
    assert.deepEqual(await collect(dir, { from: day(3), to: day(6) }), ['s-2', 's-3', 's-4']);
    assert.deepEqual(await collect(dir, { from: day(3), to: day(8), org: 'globex' }), ['s-3', 's-5']);
    assert.deepEqual(await collect(dir, { to: day(2) }), ['s-0']);
    assert.deepEqual(await collect(join(root, 'none')), []);
  });

  it('skips a line torn by a crash when reading, and cuts it off before the next append', async () => {
    const clock = new TestClock();
    const first = await LedgerFiles.open({ dir, clock });
    await first.append([line(1, clock.now()), line(2, clock.now())]);
    await first.close();
    const [name] = readdirSync(dir);
    appendFileSync(join(dir, name!), '{"t":"settle","id":"s-torn","at":1,"org":"ac');
    assert.deepEqual(await collect(dir), ['s-1', 's-2'], 'a reader tolerates the torn line');

    const second = await LedgerFiles.open({ dir, clock });
    assert.equal(second.lastLine?.id, 's-2');
    await second.append([line(3, clock.now())]);
    await second.close();
    assert.deepEqual(await collect(dir), ['s-1', 's-2', 's-3']);
    assert.ok(readFileSync(join(dir, name!), 'utf8').endsWith('"cost":225}\n'));
    assert.ok(!readFileSync(join(dir, name!), 'utf8').includes('s-torn'));
  });
});
