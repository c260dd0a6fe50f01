import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminCli } from '../../support/cli-process.js';

/**
 * A config without `store` (the documented default, `{kind: "memory"}`) keeps balances and keys only inside the
 * process that serves it. `tollgate admin` cannot reach that state: a top-up it "makes" lives in its own throw-away
 * store and vanishes when it exits, a key it "creates" works nowhere. It must refuse instead of reporting success.
 */
describe('tollgate admin on a memory store without a file', function () {
  this.timeout(20_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-hunt-nofile-'));
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ organizations: { acme: { wallet: 3 } } }));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a top-up and a key creation it could not keep (exit 1, says why) instead of printing a new wallet and a key', async () => {
    const topUp = await adminCli(dir, '--config', 'config.json', 'topup', 'acme', '5');
    assert.equal(topUp.code, 1, `a top-up that nothing keeps is reported as done: ${topUp.output}`);
    assert.match(topUp.output, /store\.file/);
    assert.doesNotMatch(topUp.output, /"wallet"/);

    const created = await adminCli(dir, '--config', 'config.json', 'keys', 'create', 'acme');
    assert.equal(created.code, 1, `a key that no server knows is printed: ${created.output}`);
    assert.doesNotMatch(created.output, /"key"/);

    // Nor can it report usage: it would show the configured opening balance, not the serving process's.
    const usage = await adminCli(dir, '--config', 'config.json', 'usage', 'acme');
    assert.equal(usage.code, 1, usage.output);
  });
});
