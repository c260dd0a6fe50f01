import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminCli } from '../../support/cli-process.js';

const KEY = 'tg-hunt-revoke-unknown-0123456789abcdef';

/**
 * `tollgate admin keys revoke <keyOrId>` is what an operator runs, often from an incident script, when a key leaked.
 * When it revokes nothing (a typo in the id, the leaked key pasted with a character missing, a configured key whose
 * `${NAME}` is unset in this shell so the command does not know it), it prints `{"revoked": false}` and exits 0:
 * `tollgate admin keys revoke "$LEAKED" && echo revoked` reports success while the key keeps working.
 */
describe('tollgate admin keys revoke of a key it does not know', function () {
  this.timeout(20_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-hunt-revoke-'));
    // The store's directory, as an installation has it (tollgate admin never makes one).
    mkdirSync(join(dir, 'data'));
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ keys: [{ key: KEY, org: 'acme', id: 'acme-main' }], organizations: { acme: { wallet: 1 } }, store: { kind: 'memory', file: 'data/state.json' } }));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('exits with code 1 and says no key was revoked when nothing matches, and 0 when it revoked one', async () => {
    for (const typo of ['acme-mian', KEY.slice(0, -1)]) {
      const { code, output } = await adminCli(dir, '--config', 'config.json', 'keys', 'revoke', typo);
      assert.equal(code, 1, `nothing was revoked, yet the command succeeded:\n${output}`);
      assert.match(output, /no key/i);
    }
    const revoked = await adminCli(dir, '--config', 'config.json', 'keys', 'revoke', 'acme-main');
    assert.equal(revoked.code, 0, revoked.output);
    assert.deepEqual(JSON.parse(revoked.output), { revoked: true });
  });
});
