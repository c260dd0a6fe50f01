import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeyRing } from '../../../packages/middleware/src/auth/index.js';
import { parseConfig } from '../../../packages/middleware/src/config/index.js';
import { systemClock } from '../../../packages/middleware/src/runtime-clock.js';
import { createPolicy, readLedger, type LedgerLine } from '../../../packages/middleware/src/store/index.js';
import { StoreFiles } from '../../../packages/middleware/src/store/store-files.js';

const PRINCIPAL = { keyId: 'k1', org: 'acme', scopes: ['models' as const] };

/** Fills a filesystem with one file until it refuses (ENOSPC); returns the file. */
function fill(dir: string): string {
  const filler = join(dir, 'filler');
  const block = Buffer.alloc(4096, 1);
  try {
    for (;;) writeFileSync(filler, block, { flag: 'a' });
  } catch (error) {
    assert.equal((error as NodeJS.ErrnoException).code, 'ENOSPC');
  }
  return filler;
}

describe('the memory store\'s ledger on a disk that fills up, then has room again', function () {
  this.timeout(20_000);
  let dir: string;
  let ledgerDir: string;
  beforeEach(function () {
    if (process.getuid?.() !== 0) this.skip();
    dir = mkdtempSync(join(tmpdir(), 'tollgate-ledger-back-'));
    ledgerDir = join(dir, 'state.json.ledger');
    mkdirSync(ledgerDir, { mode: 0o700 });
    // The ledger alone on a small real filesystem: the journal keeps working, the ledger files are refused.
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=262144,mode=0700', 'tmpfs', ledgerDir]);
  });
  afterEach(() => {
    if (!dir) return;
    execFileSync('umount', ['-l', ledgerDir]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes the refused settlements by itself once there is room, in order, once each, and keeps writing the next ones', async () => {
    const { config } = parseConfig({ organizations: { acme: { wallet: 100 } }, store: { kind: 'memory', file: 'state.json' } }, {});
    const errors: string[] = [];
    const infos: string[] = [];
    // The store's files report a recovery with `info` when the logger has it (the middleware's logger does).
    const logger = { error: (message: string) => void errors.push(message), info: (message: string) => void infos.push(message) };
    const open = () => createPolicy({ config, keys: new KeyRing(), clock: systemClock, baseDir: dir, logger });
    const settle = async (policy: Awaited<ReturnType<typeof open>>['policy'], micros: number) => {
      const admission = await policy.admit({ principal: PRINCIPAL, alias: 'gpt', billing: 'wallet', price: { input: 1, output: 0 }, estimatedInputTokens: 1, maxOutputTokens: 0 });
      await admission.settle({ inputTokens: micros, outputTokens: 0 });
    };
    const costs = async () => {
      const seen: number[] = [];
      for await (const line of readLedger(ledgerDir, { org: 'acme' })) seen.push(line.cost);
      return seen;
    };

    const { policy } = await open();
    try {
      const filler = fill(ledgerDir);
      await settle(policy, 1);
      await settle(policy, 2);
      assert.deepEqual(await costs(), []);

      unlinkSync(filler);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await settle(policy, 3);
      assert.deepEqual(await costs(), [1, 2, 3], 'caught up without a restart, in order');
      assert.equal(errors.length, 1, `one report for the refusal: ${JSON.stringify(errors)}`);
      assert.match(errors[0]!, /written again every second/);
      assert.ok(infos.some((line) => /writing as usual again/.test(line)), JSON.stringify(infos));
    } finally {
      await policy.close();
    }

    // The next start finds nothing missing: no settlement written twice.
    const again = await open();
    await again.policy.close();
    assert.deepEqual(await costs(), [1, 2, 3]);
  });

  it('past the lines it holds in memory, reads the rest back from the journal once there is room, and snapshots again', async () => {
    const errors: string[] = [];
    const state = { apply: () => undefined, restore: () => undefined, capture: () => ({ orgs: {}, keys: [], revoked: [], keyStates: {} }) };
    const open = () => StoreFiles.open({ file: join(dir, 'state.json'), clock: systemClock, snapshotAfterBytes: 4_096, ledgerBacklog: 5, logger: { error: (message) => void errors.push(message), info: () => undefined } }, state);
    let serial = 0;
    const line = (): LedgerLine => ({ t: 'settle', id: `s${++serial}`, at: Date.now(), org: 'acme', keyId: 'k1', alias: 'gpt', in: serial, out: 0, included: 0, cost: serial });
    const journalBytes = () => readdirSync(dir).filter((name) => /^state\.json\.journal\.\d+$/.test(name)).reduce((sum, name) => sum + (statSync(join(dir, name), { throwIfNoEntry: false })?.size ?? 0), 0);
    const ids = async () => {
      const seen: string[] = [];
      for await (const written of readLedger(ledgerDir, {})) seen.push(written.id);
      return seen;
    };
    const expected = (count: number) => Array.from({ length: count }, (_, i) => `s${i + 1}`);

    const files = await open();
    try {
      const filler = fill(ledgerDir);
      // 200 settlements of ~115 bytes: 23 KB of journal, five snapshots' worth, none of them written meanwhile.
      for (let i = 0; i < 200; i++) await files.settle(line());
      assert.deepEqual(await ids(), []);
      assert.ok(errors.some((message) => /5 settlements wait/.test(message)), JSON.stringify(errors));
      assert.ok(journalBytes() > 20_000, 'the journal keeps every settlement the ledger lacks');

      unlinkSync(filler);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      for (let i = 0; i < 30; i++) await files.settle(line());
      assert.deepEqual(await ids(), expected(230), 'caught up without a restart: every settlement once, in order');
      assert.ok(journalBytes() < 16_384, `snapshots replace the journal again (${journalBytes()} bytes)`);
    } finally {
      await files.close();
    }
    const again = await open();
    await again.close();
    assert.deepEqual(await ids(), expected(230), 'the next start finds nothing missing');
  });
});
