import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crashRuns, seedDatabase } from './crash-harness.js';

const RUNS = Number(process.env.TG_CRASH_RUNS ?? 40);

describe(`SQL page journal under SIGKILL (${RUNS} rounds)`, () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'tollgate-crash-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps every acknowledged write through kills during commits, checkpoints and start-up recovery', async function () {
    this.timeout(RUNS * 30_000);
    await seedDatabase(dir);
    const summary = await crashRuns(dir, RUNS, 4_000);
    console.log(`      ${JSON.stringify({ ...summary, failures: summary.failures.length })}`);
    assert.deepEqual(summary.failures, []);
    assert.ok(summary.killedDuringBoot + summary.killedDuringCheckpoint + summary.faultKills > 0, 'no kill landed in a checkpoint or a boot');
  });
});
