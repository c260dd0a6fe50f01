import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminCli } from '../../support/cli-process.js';

/**
 * `tollgate admin` works on the store a server uses. Pointed at a directory that is not there — a typo in
 * `--data`, or a config whose relative `store.file` is read from another working directory than the
 * server's — it made a new, empty store on the spot (and, on the embedded default, a new development key),
 * applied the change there and exited 0: `topup acme 50` printed the new wallet, and the server never saw
 * the money; `usage` printed a fresh organization's numbers.
 */
describe('tollgate admin pointed at a store directory that does not exist', function () {
  this.timeout(30_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-admin-nowhere-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a top-up on the embedded default under a --data typo with exit 1, naming it, and creates nothing', async () => {
    const { code, output } = await adminCli(dir, '--data', 'tolgate-data', 'topup', 'local', '5');
    assert.equal(code, 1, `the top-up went into a store created on the spot:\n${output}`);
    assert.match(output, /tolgate-data/);
    assert.match(output, /nothing was changed/);
    assert.deepEqual(readdirSync(dir), []);
  });

  it('refuses a top-up through a config whose relative store.file names no directory from here, and creates nothing', async () => {
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ organizations: { acme: { wallet: 3 } }, store: { kind: 'memory', file: 'data/state.json' } }));
    const { code, output } = await adminCli(dir, '--config', 'config.json', 'topup', 'acme', '50');
    assert.equal(code, 1, `the top-up went into a store created on the spot:\n${output}`);
    assert.match(output, new RegExp(`${join(dir, 'data').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    assert.doesNotMatch(output, /\n\s+at /, 'no stack trace');
    assert.deepEqual(readdirSync(dir), ['config.json']);
  });

  it('still administers a store whose directory is there (a new installation, before its first start)', async () => {
    mkdirSync(join(dir, 'data'));
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ organizations: { acme: { wallet: 3 } }, store: { kind: 'memory', file: 'data/state.json' } }));
    const { code, output } = await adminCli(dir, '--config', 'config.json', 'topup', 'acme', '2');
    assert.equal(code, 0, output);
    assert.equal((JSON.parse(output) as { wallet: number }).wallet, 5);
  });
});
