import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tollgate } from '@tollgate/middleware';
import { readLedger } from '../../../packages/middleware/src/store/index.js';

const CONFIG = { organizations: { acme: { wallet: 10 } }, store: { kind: 'memory' as const, file: 'state.json' } };

/** One admission and settlement of USD 3 in a child whose files may not grow past 64 KiB (like a full disk). */
function settleUnderSizeLimit(dir: string): { logged: string[]; usage: { requests: number; costUsd: number } } {
  const child = fileURLToPath(new URL('./ledger-child.mjs', import.meta.url));
  const output = execFileSync('bash', ['-c', `ulimit -f 64 && exec "${process.execPath}" "${child}" "${dir}"`], { encoding: 'utf8' });
  return JSON.parse(output) as { logged: string[]; usage: { requests: number; costUsd: number } };
}

async function ledgerIds(dir: string): Promise<number[]> {
  const costs: number[] = [];
  for await (const line of readLedger(join(dir, 'state.json.ledger'), { org: 'acme' })) costs.push(line.cost);
  return costs;
}

describe('memory store files that the disk refuses (file size limit, like a full disk)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-ledger-full-'));
    const gate = tollgate(CONFIG, { baseDir: dir });
    await gate.ready();
    await gate.close();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('journal refused: reports the settlement it could not write, with what is lacking, and keeps the charge in memory', () => {
    // Top-ups of nothing take the journal past the child's limit.
    const journal = join(dir, 'state.json.journal.1');
    writeFileSync(journal, Array.from({ length: 1500 }, (_, i) => `${JSON.stringify({ t: 'topup', at: 2 + i, org: 'acme', micros: 0 })}\n`).join(''), { flag: 'a' });
    const sizeBefore = statSync(journal).size;
    assert.ok(sizeBefore > 64 * 1024);

    const { logged, usage } = settleUnderSizeLimit(dir);
    assert.equal(logged.length, 1);
    assert.match(logged[0]!, /^ledger: could not write settlement \{"t":"settle".*"cost":3000000\}; it is charged in memory but will be missing after a restart \(EFBIG\)$/);
    assert.deepEqual([usage.requests, usage.costUsd], [1, 3]);
    assert.equal(statSync(journal).size, sizeBefore);
  });

  it('ledger refused: reports it, keeps it in the journal, and the next start writes it to the ledger', async () => {
    const stamp = new Date().toISOString().replace(/[-:.]/g, '');
    const ledgerFile = join(dir, 'state.json.ledger', `${stamp}-0001.jsonl`);
    const other = { t: 'settle', id: 'x', at: Date.now(), org: 'globex', keyId: 'k', alias: 'gpt', in: 1, out: 1, included: 0, cost: 1 };
    writeFileSync(ledgerFile, Array.from({ length: 600 }, (_, i) => `${JSON.stringify({ ...other, id: `other-${i}` })}\n`).join(''), { mode: 0o600 });
    assert.ok(statSync(ledgerFile).size > 64 * 1024);

    const { logged, usage } = settleUnderSizeLimit(dir);
    assert.equal(logged.length, 1);
    assert.match(logged[0]!, /^ledger: could not write 1 settlement\(s\) to the ledger files \(first \{"t":"settle".*"cost":3000000\}\); they are charged and in the journal, and are written again every second \(the next start writes them if the ledger stays refused; .*\) \(EFBIG\)$/);
    assert.deepEqual([usage.requests, usage.costUsd], [1, 3]);
    assert.deepEqual(await ledgerIds(dir), []);

    const gate = tollgate(CONFIG, { baseDir: dir });
    const after = await gate.admin.usage('acme');
    await gate.close();
    assert.deepEqual([after.requests, after.costUsd], [1, 3]);
    assert.deepEqual(await ledgerIds(dir), [3_000_000]);
    assert.equal(readdirSync(join(dir, 'state.json.ledger')).length, 1);
  });
});
