import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeyRing } from '../../../packages/middleware/src/auth/index.js';
import { parseConfig } from '../../../packages/middleware/src/config/index.js';
import { createPolicy, StoreDamagedError } from '../../../packages/middleware/src/store/index.js';
import { TestClock } from '../policy/policy-fixture.js';

const KEY = 'tg-damaged-key-0001-0123456789abcdef';

/**
 * README "The memory store's files": state.json is the snapshot (balances, created keys, revocations). One that
 * was lost — cut short, zero-filled, emptied, deleted — must not be taken for a fresh start or an old-format
 * journal: that would reset the wallet and accept revoked keys again. Start-up refuses, naming the file, and
 * changes nothing on disk.
 */
describe('memory store start-up with a lost snapshot', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-damaged-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function start() {
    const { config } = parseConfig({ keys: [{ key: KEY, org: 'acme', id: 'app' }], organizations: { acme: { wallet: 10 } }, store: { kind: 'memory', file: 'state.json', snapshotAfterBytes: 4096 } }, {});
    const keys = KeyRing.fromConfig(config.keys);
    return { ...(await createPolicy({ config, keys, clock: new TestClock(), baseDir: dir, logger: { error() {} } })), keys };
  }

  /** Top-ups past a snapshot, a created and a revoked key: the state a lost snapshot would take with it. */
  async function history(): Promise<number> {
    const first = await start();
    for (let i = 0; i < 80; i++) await first.admin.topUp('acme', 1);
    await first.admin.revokeKey((await first.admin.createKey('acme', ['models'])).keyId);
    await first.admin.revokeKey('app');
    for (let i = 0; i < 80; i++) await first.admin.topUp('acme', 1);
    const { wallet } = await first.admin.usage('acme');
    await first.policy.close();
    assert.match(readFileSync(join(dir, 'state.json'), 'utf8'), /"revoked":\["/, 'the snapshot holds the revocations');
    return wallet;
  }

  function filesOnDisk(): Record<string, string> {
    const files: Record<string, string> = {};
    for (const name of readdirSync(dir, { recursive: true }) as string[]) {
      try {
        files[name] = readFileSync(join(dir, name), 'latin1');
      } catch {} // a directory
    }
    return files;
  }

  for (const [name, damage] of [
    ['cut short inside its header', (file: string) => truncateSync(file, 20)],
    ['emptied', (file: string) => truncateSync(file, 0)],
    ['zero-filled', (file: string) => writeFileSync(file, Buffer.alloc(300))],
    ['deleted', (file: string) => rmSync(file)],
  ] as const) {
    it(`refuses to start, naming state.json and changing no file, when state.json was ${name}`, async () => {
      await history();
      damage(join(dir, 'state.json'));
      const before = filesOnDisk();
      await assert.rejects(start(), (error: Error) => {
        assert.ok(error instanceof StoreDamagedError, String(error));
        assert.match(error.message, /state\.json (is damaged|is missing|is empty)/);
        assert.match(error.message, /Restore state\.json from a backup; nothing was changed/);
        return true;
      });
      assert.deepEqual(filesOnDisk(), before);
    });
  }

  it('starts from a snapshot cut short after its header with a message naming the file', async () => {
    await history();
    const file = join(dir, 'state.json');
    writeFileSync(file, readFileSync(file, 'utf8').slice(0, 60));
    await assert.rejects(start(), (error: Error) => error instanceof StoreDamagedError && /state\.json is not a readable Tollgate snapshot/.test(error.message));
  });

  it('keeps every balance and revocation across an ordinary restart (the refusals above are about loss only)', async () => {
    const wallet = await history();
    const second = await start();
    try {
      assert.equal((await second.admin.usage('acme')).wallet, wallet);
      assert.equal(second.keys.records().find((record) => record.keyId === 'app')?.revoked, true);
    } finally {
      await second.policy.close();
    }
  });
});
