import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tollgate } from '@tollgate/middleware';
import { readLedger } from '../../../packages/middleware/src/store/index.js';

const CHILD = fileURLToPath(new URL('./store-crash-child.mjs', import.meta.url));
const CONFIG = { organizations: { acme: { wallet: 1000 } }, store: { kind: 'memory' as const, file: 'state.json' } };

/** Runs the settling child on `dir` and SIGKILLs it `killAfterMs` after it is ready; answers the acknowledged ns. */
async function settleUntilKilled(dir: string, first: number, killAfterMs: number): Promise<{ acked: number[]; ready: boolean }> {
  const child = spawn(process.execPath, [CHILD, dir, String(first)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const acked: number[] = [];
  let ready = false;
  let buffered = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines) {
      if (line === 'ready' && !ready) {
        ready = true;
        setTimeout(() => child.kill('SIGKILL'), killAfterMs);
      } else if (line.startsWith('ack ')) acked.push(Number(line.slice(4)));
    }
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // A kill during start-up (a migration, a recovery) when asked for: before the child says it is ready.
  if (killAfterMs < 0) setTimeout(() => child.kill('SIGKILL'), -killAfterMs);
  await exited;
  return { acked, ready };
}

async function ledgerOf(dir: string): Promise<{ aliases: Set<string>; micros: number; lines: number }> {
  const aliases = new Set<string>();
  let micros = 0;
  let lines = 0;
  for await (const line of readLedger(join(dir, 'state.json.ledger'), { org: 'acme' })) {
    aliases.add(line.alias);
    micros += line.cost;
    lines++;
  }
  return { aliases, micros, lines };
}

describe('memory store killed at any moment (SIGKILL during snapshots, ledger rotations and a migration)', function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-store-crash-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('loses no acknowledged settlement, and the balance equals the ledger, over kills at random moments', async () => {
    const acked: number[] = [];
    for (let round = 0; round < 6; round++) {
      const result = await settleUntilKilled(dir, round * 1_000_000, 50 + Math.floor(Math.random() * 400));
      acked.push(...result.acked);
    }
    assert.ok(acked.length > 200, `only ${acked.length} settlements acknowledged`);
    const snapshot = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')) as { journal: number };
    assert.ok(snapshot.journal > 10, `snapshots were written under way (${snapshot.journal - 1})`);
    assert.ok(readdirSync(join(dir, 'state.json.ledger')).length > 10, 'ledger files were rotated under way');

    const gate = tollgate(CONFIG, { baseDir: dir });
    const usage = await gate.admin.usage('acme');
    await gate.close();
    const ledger = await ledgerOf(dir);
    const lost = acked.filter((n) => !ledger.aliases.has(`a${n}`));
    assert.deepEqual(lost, [], 'every acknowledged settlement is in the ledger');
    assert.equal(ledger.aliases.size, ledger.lines, 'no settlement twice in the ledger');
    assert.equal(usage.requests, ledger.lines);
    assert.equal(Math.round((1000 - usage.wallet) * 1e6), ledger.micros, 'the balance change equals the ledger sum');
    assert.deepEqual(readdirSync(dir).filter((name) => name.endsWith('.tmp')), [], 'a snapshot\'s temporary file left by a kill is removed at the next start');
    assert.ok(readdirSync(dir).filter((name) => name.startsWith('state.json.journal.')).length <= 2, 'journals a snapshot covers are removed');
  });

  it('migrates an old-format journal whatever kills interrupt it, keeping its totals and every acknowledged settlement', async () => {
    // An old-format journal: the opening balance and 60,000 settlements of 225 micro-dollars each.
    const old = [JSON.stringify({ t: 'open', at: 1, org: 'acme', micros: 1_000_000_000, payment: false })];
    for (let n = 0; n < 60_000; n++) old.push(JSON.stringify({ t: 'settle', id: `old-${n}`, at: 2 + n, org: 'acme', keyId: 'k1', alias: `old${n}`, in: 10, out: 20, included: 0, cost: 225 }));
    writeFileSync(join(dir, 'state.json'), `${old.join('\n')}\n`);

    const acked: number[] = [];
    let migrated = false;
    for (let round = 0; round < 8; round++) {
      // Early rounds are killed during the migration itself (before the store is ready), later ones after it.
      const result = await settleUntilKilled(dir, round * 1_000_000, round < 5 ? -(30 + Math.floor(Math.random() * 300)) : 100 + Math.floor(Math.random() * 200));
      migrated ||= result.ready;
      acked.push(...result.acked);
    }
    assert.ok(migrated);
    const gate = tollgate(CONFIG, { baseDir: dir });
    const usage = await gate.admin.usage('acme');
    await gate.close();
    const ledger = await ledgerOf(dir);
    assert.deepEqual(acked.filter((n) => !ledger.aliases.has(`a${n}`)), []);
    assert.equal(ledger.aliases.size, ledger.lines);
    for (const n of [0, 1, 30_000, 59_999]) assert.ok(ledger.aliases.has(`old${n}`), `old settlement ${n} stays in the ledger`);
    assert.equal(usage.requests, ledger.lines);
    assert.equal(Math.round((1000 - usage.wallet) * 1e6), ledger.micros);
  });
});
