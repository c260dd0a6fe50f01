import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminCli } from '../../support/cli-process.js';

/**
 * README: "`admin ledger` only reads a memory store's ledger files". On the embedded default it first builds the
 * whole embedded config, which creates the `--data` directory and writes a new development key into it. So a
 * month-end `tollgate admin ledger --sum --data /srv/tolgate` (a typo) answers `{}` — no spend at all — with exit
 * code 0, and leaves a directory and a fresh key behind where there was nothing.
 */
describe('tollgate admin ledger on the embedded default', function () {
  this.timeout(20_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-hunt-ledger-ro-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes nothing, and says there is no data directory instead of summing an empty ledger', async () => {
    const { code, output } = await adminCli(dir, 'ledger', '--sum', '--data', 'tolgate-data');
    assert.deepEqual(readdirSync(dir), [], `a read-only command created ${existsSync(join(dir, 'tolgate-data')) ? readdirSync(join(dir, 'tolgate-data')).join(', ') : 'files'}`);
    assert.equal(code, 1, `a data directory that does not exist is summed as no spend:\n${output}`);
    assert.match(output, /tolgate-data/);
  });
});
