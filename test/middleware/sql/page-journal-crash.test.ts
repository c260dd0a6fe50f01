import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crashRuns, seedDatabase } from './crash-harness.js';

// The fast part of the SIGKILL test; `npm run test:slow` runs many more rounds (page-journal-crash.slow.ts).
describe('SQL page journal under SIGKILL', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'tollgate-crash-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps every acknowledged write, passes integrity_check and shows nothing of a failed request after kills at random moments', async function () {
    this.timeout(120_000);
    await seedDatabase(dir);
    const summary = await crashRuns(dir, 3, 2_000);
    assert.deepEqual(summary.failures, []);
    assert.ok(summary.acknowledged > 0, 'no write was acknowledged: the test checked nothing');
  });
});
