import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LedgerFiles, readLedger, type LedgerLine } from '../../../packages/middleware/src/store/index.js';
import { TestClock } from '../policy/policy-fixture.js';

const line = (n: number, at: number): LedgerLine => ({ t: 'settle', id: `s-${n}`, at, org: 'acme', keyId: 'k1', alias: 'gpt', in: 10, out: 20, included: 0, cost: 225 });

describe('ledger lines appended late (start-up repair after a kill) and --to', () => {
  let root: string;
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'hunt-ledger-'))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('exports a settlement of Nov 1 that the next start (Nov 3) wrote to the ledger, with --from Nov 1 --to Nov 2', async () => {
    const dir = join(root, 'ledger');
    // Nov 1: one settlement reaches the ledger; the next is fsynced in the journal, then the process is killed.
    const clock = new TestClock(Date.parse('2026-11-01T10:00:00Z'));
    const first = await LedgerFiles.open({ dir, clock });
    await first.append([line(1, clock.now())]);
    await first.close();
    const killedAt = Date.parse('2026-11-01T23:30:00Z');
    // Nov 3: StoreFiles.open appends the journal's missing settlement (store-files.ts: ledger.append(missing)).
    clock.advance(Date.parse('2026-11-03T08:00:00Z') - clock.now());
    const restarted = await LedgerFiles.open({ dir, clock });
    await restarted.append([line(2, killedAt)]);
    await restarted.close();

    const ids: string[] = [];
    for await (const entry of readLedger(dir, { from: Date.parse('2026-11-01'), to: Date.parse('2026-11-02') })) ids.push(entry.id);
    assert.deepEqual(ids, ['s-1', 's-2'], 'both settlements of Nov 1 are in the Nov 1 export (and in --sum)');
  });
});
