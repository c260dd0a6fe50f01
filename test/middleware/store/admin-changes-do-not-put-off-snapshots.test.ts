import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeyRing } from '../../../packages/middleware/src/auth/index.js';
import { parseConfig } from '../../../packages/middleware/src/config/index.js';
import { createPolicy } from '../../../packages/middleware/src/store/index.js';
import { journalEvents, type SnapshotEvent } from '../../../packages/middleware/src/store/journal-events.js';
import { TestClock } from '../policy/policy-fixture.js';

const SNAPSHOT_AFTER = 4096;
const CALLERS = 4;
const TOP_UPS_EACH = 300;
/** A top-up's journal line is ~70 bytes: 1,200 of them kept whole would be ~84 KB, twenty times the threshold. */
const JOURNAL_BOUND = 4 * SNAPSHOT_AFTER;

/**
 * README "The memory store's files": a snapshot replaces the journal once it passes `snapshotAfterBytes`. A
 * snapshot waits for the admin changes in flight (written, not yet applied); with callers whose changes kept
 * overlapping (a billing job topping up in parallel, the console of several organizations) it never came, and
 * the journal — and every restart's replay — grew with the history of admin changes.
 */
describe('memory store: admin changes that keep overlapping do not put the snapshot off', () => {
  let dir: string;
  const snapshots: SnapshotEvent[] = [];
  const onSnapshot = (event: unknown) => snapshots.push(event as SnapshotEvent);
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-admin-snapshots-'));
    snapshots.length = 0;
    journalEvents.snapshot.subscribe(onSnapshot);
  });
  afterEach(() => {
    journalEvents.snapshot.unsubscribe(onSnapshot);
    rmSync(dir, { recursive: true, force: true });
  });

  it(`${CALLERS} callers each topping up ${TOP_UPS_EACH} times: snapshots are written, the journal stays under ${JOURNAL_BOUND} bytes, and a restart finds every cent`, async function () {
    this.timeout(60_000);
    const { config } = parseConfig({ organizations: { acme: { wallet: 1 } }, store: { kind: 'memory', file: 'state.json', snapshotAfterBytes: SNAPSHOT_AFTER } }, {});
    const open = () => createPolicy({ config, keys: new KeyRing(), clock: new TestClock(), baseDir: dir });
    const { policy, admin } = await open();
    let largestJournal = 0;
    try {
      await Promise.all(
        Array.from({ length: CALLERS }, async () => {
          for (let i = 0; i < TOP_UPS_EACH; i++) {
            await admin.topUp('acme', 0.01);
            largestJournal = Math.max(largestJournal, journalBytesOnDisk(dir));
          }
        }),
      );
    } finally {
      await policy.close();
    }
    assert.ok(snapshots.length >= 5, `snapshots were written as the journal passed ${SNAPSHOT_AFTER} bytes (${snapshots.length})`);
    assert.ok(largestJournal <= JOURNAL_BOUND, `the journal on disk held at most ${largestJournal} bytes`);
    const restarted = await open();
    try {
      assert.equal((await restarted.admin.usage('acme')).wallet, 1 + (CALLERS * TOP_UPS_EACH) / 100);
    } finally {
      await restarted.policy.close();
    }
  });
});

/** Bytes in the journal generation files beside the snapshot: what a restart would replay. */
function journalBytesOnDisk(dir: string): number {
  let bytes = 0;
  for (const name of readdirSync(dir)) if (/^state\.json\.journal\.\d+$/.test(name)) bytes += statSync(join(dir, name), { throwIfNoEntry: false })?.size ?? 0;
  return bytes;
}
