import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tollgate } from '@tollgate/middleware';
import { writeOldJournal } from '../../support/old-journal.js';

/** V8's largest string (0x1fffffe8 characters): the old store could not read a journal past it. */
const LARGEST_STRING = 0x1fffffe8;

describe('a history larger than the largest JavaScript string', function () {
  this.timeout(600_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-large-history-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('opens (migrated once, streamed), its usage totals are right, and the next start reads only the snapshot', async () => {
    const totals = await writeOldJournal(join(dir, 'state.json'), { org: 'acme', walletMicros: 1_000_000_000_000, settlements: 3_000_000 });
    assert.ok(statSync(join(dir, 'state.json')).size > LARGEST_STRING, `${statSync(join(dir, 'state.json')).size} bytes`);
    const config = { organizations: { acme: { wallet: 1_000_000, paymentMethod: true } }, store: { kind: 'memory' as const, file: 'state.json' } };
    const expected = { requests: totals.requests, inputTokens: totals.inputTokens, outputTokens: totals.outputTokens, costMicros: totals.costMicros, walletMicros: 1_000_000_000_000 - totals.costMicros };
    const usageOf = async () => {
      const started = performance.now();
      const gate = tollgate(config, { baseDir: dir, logger: { info() {}, error() {} } });
      const usage = await gate.admin.usage('acme');
      const ms = performance.now() - started;
      await gate.close();
      return { ms, usage: { requests: usage.requests, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, costMicros: Math.round(usage.costUsd * 1e6), walletMicros: Math.round(usage.wallet * 1e6) } };
    };

    const first = await usageOf();
    assert.deepEqual(first.usage, expected);
    const second = await usageOf();
    assert.deepEqual(second.usage, expected);
    assert.ok(second.ms < 2_000, `the second start took ${second.ms.toFixed(0)} ms (the first, migrating: ${first.ms.toFixed(0)} ms)`);
    console.log(`      ${(totals.bytes / 2 ** 20).toFixed(0)} MiB old journal: migrated in ${first.ms.toFixed(0)} ms, next start ${second.ms.toFixed(0)} ms`);
  });
});
