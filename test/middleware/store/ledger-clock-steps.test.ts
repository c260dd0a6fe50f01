import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeyRing } from '../../../packages/middleware/src/auth/index.js';
import { parseConfig } from '../../../packages/middleware/src/config/index.js';
import type { AdmissionRequest } from '../../../packages/middleware/src/policy/index.js';
import { LedgerFiles, createPolicy, readLedger, type LedgerLine } from '../../../packages/middleware/src/store/index.js';
import { TestClock } from '../policy/policy-fixture.js';

const DAY = 86_400_000;
const request: AdmissionRequest = { principal: { keyId: 'k1', org: 'acme', scopes: ['models'] }, alias: 'gpt', billing: 'wallet', price: { input: 2.5, output: 10 }, estimatedInputTokens: 3, maxOutputTokens: 4 };
const line = (n: number, at: number): LedgerLine => ({ t: 'settle', id: `s-${n}`, at, org: 'acme', keyId: 'k1', alias: 'gpt', in: 10, out: 20, included: 0, cost: 225 });

async function ledgerLines(dir: string, filter: Parameters<typeof readLedger>[1] = {}): Promise<LedgerLine[]> {
  const lines: LedgerLine[] = [];
  for await (const entry of readLedger(dir, filter)) lines.push(entry);
  return lines;
}

/** The ledger files after the clock stepped back across midnight (an NTP correction of a clock a day fast). */
describe('ledger files across a clock stepped back', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-ledger-steps-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a restart after the step appends no settlement to the ledger a second time: the export sums to what was charged', async () => {
    const clock = new TestClock(Date.parse('2026-11-22T12:00:00Z'));
    const { config } = parseConfig({ organizations: { acme: { wallet: 10 } }, store: { kind: 'memory', file: 'state.json' } }, {});
    const open = () => createPolicy({ config, keys: new KeyRing(), clock, baseDir: dir });
    const first = await open();
    await (await first.policy.admit(request)).settle({ inputTokens: 3, outputTokens: 4 });
    clock.advance(-DAY);
    await (await first.policy.admit(request)).settle({ inputTokens: 3, outputTokens: 4 });
    await first.policy.close();

    const second = await open();
    const spent = 10 - (await second.admin.usage('acme')).wallet;
    await second.policy.close();
    const lines = await ledgerLines(join(dir, 'state.json.ledger'));
    assert.equal(new Set(lines.map((l) => l.id)).size, 2);
    assert.equal(lines.length, 2, 'each settlement once in the ledger');
    assert.equal(lines.reduce((sum, l) => sum + l.cost, 0), Math.round(spent * 1e6));
  });

  it('keeps appending in order after the step: files sort as they were written, and a period export misses nothing', async () => {
    const clock = new TestClock(Date.parse('2026-11-22T23:30:00Z'));
    const ledger = await LedgerFiles.open({ dir, clock, maxBytes: 400 });
    await ledger.append([line(1, clock.now())]);
    clock.time = Date.parse('2026-11-23T00:30:00Z');
    await ledger.append([line(2, clock.now())]);
    clock.time = Date.parse('2026-11-22T23:45:00Z'); // stepped back across midnight
    for (let n = 3; n <= 8; n++) await ledger.append([line(n, clock.now())]);
    await ledger.close();
    const reopened = await LedgerFiles.open({ dir, clock });
    assert.equal(reopened.lastLine?.id, 's-8', 'the newest file holds the last line written');
    await reopened.close();

    assert.deepEqual((await ledgerLines(dir)).map((l) => l.id), ['s-1', 's-2', 's-3', 's-4', 's-5', 's-6', 's-7', 's-8']);
    const names = readdirSync(dir).sort();
    assert.ok(names.length >= 3, `size rotation: ${names.join(' ')}`);
    assert.deepEqual((await ledgerLines(dir, { from: Date.parse('2026-11-22T23:40:00Z') })).map((l) => l.id), ['s-2', 's-3', 's-4', 's-5', 's-6', 's-7', 's-8']);
  });
});
