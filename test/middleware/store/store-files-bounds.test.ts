import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeyRing } from '../../../packages/middleware/src/auth/index.js';
import { parseConfig } from '../../../packages/middleware/src/config/index.js';
import { type AdmissionRequest } from '../../../packages/middleware/src/policy/index.js';
import { createPolicy, readLedger } from '../../../packages/middleware/src/store/index.js';
import { journalEvents, type SnapshotEvent } from '../../../packages/middleware/src/store/journal-events.js';
import { TestClock } from '../policy/policy-fixture.js';

const SNAPSHOT_AFTER = 4096;
const LEDGER_FILE = 16_384;
const SETTLEMENTS = 1600;
const IN_FLIGHT = 4;
/**
 * A journal passes the threshold by what arrives while the snapshot before it is still being written (a few
 * fsyncs: it depends on the disk's speed, not on the history), so the bound is generous — 32 KiB against a
 * history of ~370 KB — yet a journal that kept the history would pass it ten times over.
 */
const JOURNAL_BOUND = 8 * SNAPSHOT_AFTER;

const request: AdmissionRequest = {
  principal: { keyId: 'soak', org: 'acme', scopes: ['models'] },
  alias: 'gpt',
  billing: 'wallet',
  price: { input: 2.5, output: 10 },
  estimatedInputTokens: 10,
  maxOutputTokens: 64,
  requestId: 'req',
};

/**
 * Issue 14's soak: the memory store's cost per settlement must not grow with the settlements before it.
 * What a snapshot writes, what start-up would read (snapshot + journal) and what a ledger file holds are
 * bounded by the state and the configured sizes, never by the history (README "The memory store's files").
 */
describe('memory store files: their sizes follow the state, not the number of settlements', () => {
  let dir: string;
  const snapshots: SnapshotEvent[] = [];
  const onSnapshot = (event: unknown) => snapshots.push(event as SnapshotEvent);
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-store-bounds-'));
    snapshots.length = 0;
    journalEvents.snapshot.subscribe(onSnapshot);
  });
  afterEach(() => {
    journalEvents.snapshot.unsubscribe(onSnapshot);
    rmSync(dir, { recursive: true, force: true });
  });

  it(`after ${SETTLEMENTS} settlements every snapshot is as small as the first, the journal stays within a few snapshots' worth and ledger files under their size`, async () => {
    const { config } = parseConfig({
      organizations: { acme: { wallet: 1_000_000, limits: { rpm: 1e9, tpm: 1e12, concurrency: 1e6 } } },
      store: { kind: 'memory', file: 'state.json', snapshotAfterBytes: SNAPSHOT_AFTER, ledgerFileBytes: LEDGER_FILE },
    }, {});
    const { policy, admin } = await createPolicy({ config, keys: new KeyRing(), clock: new TestClock(), baseDir: dir });
    let largestJournal = 0;
    try {
      await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
        for (let i = 0; i < SETTLEMENTS / IN_FLIGHT; i++) {
          await (await policy.admit(request)).settle({ inputTokens: 10, outputTokens: 20 }, 'openai/gpt-4o');
          largestJournal = Math.max(largestJournal, journalBytesOnDisk(dir));
        }
      }));
      assert.equal((await admin.usage('acme')).requests, SETTLEMENTS);
    } finally {
      await policy.close();
    }

    // Each settlement line is ~230 bytes: thousands of settlements pass 4 KiB many times over.
    assert.ok(snapshots.length >= 20, `snapshots were written as the journal passed ${SNAPSHOT_AFTER} bytes (${snapshots.length})`);
    const first = snapshots[0]!.snapshotBytes;
    // Only the counters' digits may lengthen (requests 1 → 1600, tokens, cost): a few bytes, not a line per settlement.
    for (const snapshot of snapshots) assert.ok(snapshot.snapshotBytes <= first + 32, `snapshot ${snapshot.generation} holds ${snapshot.snapshotBytes} bytes, the first ${first}`);
    for (const snapshot of snapshots) assert.ok(snapshot.journalBytes <= JOURNAL_BOUND, `journal generation before snapshot ${snapshot.generation}: ${snapshot.journalBytes} bytes`);
    assert.ok(largestJournal <= 2 * JOURNAL_BOUND, `journal files on disk never held more than two generations' worth (largest ${largestJournal} bytes)`);
    assert.ok(statSync(join(dir, 'state.json')).size <= first + 32, 'the snapshot on disk is the size of the state');

    const ledgerDir = join(dir, 'state.json.ledger');
    for (const name of readdirSync(ledgerDir)) assert.ok(statSync(join(ledgerDir, name)).size <= LEDGER_FILE, `ledger file ${name} stays under ${LEDGER_FILE} bytes`);
    let lines = 0;
    for await (const _line of readLedger(ledgerDir, {})) lines++;
    assert.equal(lines, SETTLEMENTS, 'every settlement is in the ledger files, which start-up never reads');
  });
});

/** Bytes in the journal generation files beside the snapshot: what a restart would replay. */
function journalBytesOnDisk(dir: string): number {
  let bytes = 0;
  // A snapshot may remove a generation between the listing and its stat: it then holds nothing to replay.
  for (const name of readdirSync(dir)) if (/^state\.json\.journal\.\d+$/.test(name)) bytes += statSync(join(dir, name), { throwIfNoEntry: false })?.size ?? 0;
  return bytes;
}
