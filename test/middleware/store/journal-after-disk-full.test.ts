import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tollgate, type Tollgate } from '@tollgate/middleware';
import { SmallTmpfs } from '../../support/small-tmpfs.js';

/**
 * The memory store's journal on a real filesystem that fills up (a small tmpfs). A write that does not fit is
 * first cut short (the bytes up to the last free page go in), then refused with ENOSPC: the top-up is refused,
 * but the fragment of its line stayed in the journal. The next change, once there was room, was appended right
 * after that fragment, making one line that is not JSON: the next start refused the whole store ("line N is not
 * JSON; the file is damaged"), and the acknowledged top-up after the refusal was in no readable file.
 */
describe('the memory store after a change the full disk refused', function () {
  this.timeout(30_000);
  let disk: SmallTmpfs;
  let gate: Tollgate | undefined;
  const open = async () => {
    const opened = tollgate({ organizations: { acme: { wallet: 100 } }, store: { kind: 'memory', file: join(disk.dir, 'state.json') } }, { logger: { info() {}, error() {} } });
    await opened.ready();
    return opened;
  };
  beforeEach(function () {
    if (process.getuid?.() !== 0) this.skip();
    disk = SmallTmpfs.mount(256 * 1024);
  });
  afterEach(async () => {
    await gate?.close().catch(() => undefined);
    gate = undefined;
    disk?.unmount();
  });

  it('starts again with every acknowledged top-up, the one after the refusal included, and without the refused one', async () => {
    gate = await open();
    try {
      writeFileSync(join(disk.dir, 'filler'), Buffer.alloc(512 * 1024));
    } catch (error) {
      assert.equal((error as NodeJS.ErrnoException).code, 'ENOSPC');
    }
    let acknowledged = 0;
    let refusal: unknown;
    while (refusal === undefined && acknowledged < 2_000) {
      await gate.admin.topUp('acme', 0.5).then(() => acknowledged++, (error: unknown) => (refusal = error));
    }
    assert.ok(refusal, 'the disk never filled up');
    const expected = 100 + acknowledged * 0.5;
    assert.equal((await gate.admin.usage('acme')).wallet, expected, 'the refused top-up changed the wallet');

    rmSync(join(disk.dir, 'filler'));
    assert.deepEqual(await gate.admin.topUp('acme', 1), { wallet: expected + 1 });
    await gate.close();

    gate = await open();
    assert.equal((await gate.admin.usage('acme')).wallet, expected + 1);
  });
});
