import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

describe('memory store ledger that the disk refuses (file size limit, like a full disk)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-ledger-full-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reports the settlement it could not write, with what the ledger lacks, and keeps the charge in memory', () => {
    // An opening balance, then enough top-ups of nothing to take the file past the child's 64 KiB limit.
    const lines = [{ t: 'open', at: 1, org: 'acme', micros: 10_000_000, payment: false }, ...Array.from({ length: 1500 }, (_, i) => ({ t: 'topup', at: 2 + i, org: 'acme', micros: 0 }))];
    const ledger = join(dir, 'ledger.jsonl');
    writeFileSync(ledger, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    const sizeBefore = statSync(ledger).size;
    assert.ok(sizeBefore > 64 * 1024);

    const child = fileURLToPath(new URL('./ledger-child.mjs', import.meta.url));
    const output = execFileSync('bash', ['-c', `ulimit -f 64 && exec "${process.execPath}" "${child}" "${dir}"`], { encoding: 'utf8' });
    const { logged, usage } = JSON.parse(output) as { logged: string[]; usage: { requests: number; costUsd: number } };

    assert.equal(logged.length, 1);
    assert.match(logged[0]!, /^ledger: could not write settlement \{"t":"settle".*"cost":3000000\}; it is charged in memory but will be missing after a restart \(EFBIG\)$/);
    assert.equal(usage.requests, 1);
    assert.equal(usage.costUsd, 3);
    assert.equal(statSync(ledger).size, sizeBefore);
  });
});
