import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readlinkSync, rmSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JournalRecord, LedgerLine } from '../../../packages/middleware/src/store/index.js';
import { readLedger } from '../../../packages/middleware/src/store/index.js';
import { StoreFiles, type DurableState } from '../../../packages/middleware/src/store/store-files.js';
import type { SnapshotState } from '../../../packages/middleware/src/store/store-snapshot.js';
import { TestClock } from '../policy/policy-fixture.js';

/** The smallest state the files keep durable: one organization's charged micro-dollars. */
class ChargedMicros implements DurableState {
  micros = 0;
  apply(record: JournalRecord): void {
    if (record.t === 'settle') this.micros += record.cost;
  }
  restore(state: SnapshotState): void {
    this.micros = state.orgs.acme?.costMicros ?? 0;
  }
  capture(): SnapshotState {
    const acme = { walletMicros: 0, paymentMethod: false, includedUsed: 0, resetAt: null, requests: 0, inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, cacheWriteTokens: 0, costMicros: this.micros };
    return { orgs: { acme }, keys: [], revoked: [], keyStates: {} };
  }
}

const settlement = (n: number, cost: number): LedgerLine => ({ t: 'settle', id: `s-${n}`, at: 1, org: 'acme', keyId: 'k1', alias: `a${n}`, in: 1, out: 1, included: 0, cost });

/**
 * Intercepts fdatasync of the files under `dir` (by the path behind the descriptor): a test decides when a
 * sync may proceed and takes copies of the directory at chosen syncs. A copy taken after a write and before
 * its sync is what a SIGKILL at that moment leaves (the written bytes are in the page cache).
 */
async function interceptSyncs(dir: string, onSync: (path: string) => Promise<void> | void): Promise<() => void> {
  const probe = await open(join(dir, 'probe'), 'w');
  const prototype = Object.getPrototypeOf(probe) as FileHandle;
  await probe.close();
  rmSync(join(dir, 'probe'));
  const original = prototype.datasync;
  prototype.datasync = async function (this: FileHandle) {
    const path = readlinkSync(`/proc/self/fd/${this.fd}`);
    if (path.startsWith(dir)) await onSync(path);
    return original.call(this);
  };
  return () => {
    prototype.datasync = original;
  };
}

/** Opens a copy of the store files as a restart would, and answers what the state and the ledger say. */
async function reopen(copy: string): Promise<{ state: number; ledger: number }> {
  const state = new ChargedMicros();
  const files = await StoreFiles.open({ file: join(copy, 'state.json'), clock: new TestClock(), logger: { error: () => {} } }, state);
  await files.close();
  let ledger = 0;
  for await (const line of readLedger(join(copy, 'state.json.ledger'), {})) ledger += line.cost;
  return { state: state.micros, ledger };
}

describe('memory store files: a settlement reaches the ledger in journal order, across a snapshot', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'tollgate-store-order-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('a kill while the older journal generation is still syncing leaves a ledger whose sum equals the balance', async () => {
    const dir = join(root, 'live');
    const state = new ChargedMicros();
    // Every settlement passes the snapshot threshold: the first one starts a compaction and a new journal generation.
    const files = await StoreFiles.open({ file: join(dir, 'state.json'), clock: new TestClock(), snapshotAfterBytes: 1, logger: { error: () => {} } }, state);

    let releaseOlderJournal!: () => void;
    const olderJournalSynced = new Promise<void>((resolve) => (releaseOlderJournal = resolve));
    let laterReachedLedger!: () => void;
    const laterInLedger = new Promise<void>((resolve) => (laterReachedLedger = resolve));
    const kills: string[] = [];
    // Copies are taken only while generation 1 is unsynced: nothing else of the store's files is changing
    // then (the compaction waits for that settlement), so a copy is exactly what a kill at that moment leaves.
    const killHere = () => {
      const copy = join(root, `kill-${kills.length}`);
      cpSync(dir, copy, { recursive: true });
      kills.push(copy);
    };
    let held = true;
    const restore = await interceptSyncs(dir, async (path) => {
      if (path.endsWith('state.json.journal.1')) return olderJournalSynced; // a slow disk under generation 1
      if (path.includes('state.json.ledger') && held) {
        killHere();
        laterReachedLedger();
      }
    });
    try {
      state.micros += 5;
      const earlier = files.settle(settlement(1, 5)); // journal generation 1, its sync held
      state.micros += 6;
      const later = files.settle(settlement(2, 6)); // journal generation 2 (the compaction started one)
      // Either the later settlement reaches the ledger ahead of the earlier one (the bug), or nothing
      // reaches the ledger while generation 1 is unsynced: then this wait ends by time.
      await Promise.race([laterInLedger, new Promise((resolve) => setTimeout(resolve, 1500))]);
      killHere();
      held = false;
      releaseOlderJournal();
      await Promise.all([earlier, later]);
      await files.close();
    } finally {
      restore();
    }

    for (const copy of kills) {
      const { state: charged, ledger } = await reopen(copy);
      assert.equal(ledger, charged, `killed while the older generation was unsynced (${copy}): the ledger sum equals the balance change`);
    }
    assert.deepEqual(await reopen(dir), { state: 11, ledger: 11 });
  });
});
