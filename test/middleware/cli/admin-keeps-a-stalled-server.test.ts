import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminCli, serveCli, type ServingCli } from '../../support/cli-process.js';

const KEY = 'tg-hunt-stalled-server-0123456789abcdef';

/**
 * A server whose event loop does not answer for a moment (paused here with SIGSTOP; a long synchronous stretch or a
 * swapped-out process looks the same from outside) is still the store's owner: its memory holds the balances. The lock
 * exists so that nothing else writes the store behind it. A `tollgate admin` command that arrives during the stall
 * takes the silence (a 1 s ping timeout) for a dead process, deletes the live server's lock, opens the files itself,
 * and leaves the store lock-less: a second server then starts on the same file and the two fork its state.
 */
describe('tollgate admin while the serving process is stalled', function () {
  this.timeout(20_000);
  let dir: string;
  const running: ServingCli[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-hunt-stalled-'));
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ keys: [{ key: KEY, org: 'acme' }], organizations: { acme: { wallet: 1 } }, store: { kind: 'memory', file: 'data/state.json' } }));
  });
  afterEach(async () => {
    for (const server of running.splice(0)) {
      server.child.kill('SIGCONT');
      await server.stop('SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('does not take the store from a live server that is slow to answer: the top-up reaches that server and no second server can start', async () => {
    const server = await serveCli(dir, '--config', 'config.json');
    running.push(server);
    const lock = join(dir, 'data/state.json.lock');
    const lockHolder = () => (existsSync(lock) ? (JSON.parse(readFileSync(lock, 'utf8')) as { pid: number }).pid : undefined);
    assert.equal(lockHolder(), server.child.pid);

    server.child.kill('SIGSTOP');
    const topUp = adminCli(dir, '--config', 'config.json', 'topup', 'acme', '2');
    // Stalled for 6 s, or until the command gave up waiting for it, whichever comes first.
    await Promise.race([topUp, new Promise((resolve) => setTimeout(resolve, 6_000))]);
    server.child.kill('SIGCONT');
    const { code, output } = await topUp;
    assert.equal(code, 0, output);
    assert.deepEqual(JSON.parse(output), { wallet: 3 });

    assert.equal(lockHolder(), server.child.pid, 'the running server still holds its store (its lock was deleted)');
    const second = await serveCli(dir, '--config', 'config.json').then(
      (started) => {
        running.push(started);
        return { code: 0, output: started.output() };
      },
      (error: { code: number; output: string }) => error,
    );
    assert.equal(second.code, 1, `a second server started on the store the first one still serves:\n${second.output}`);
    assert.match(second.output, new RegExp(`is in use by process ${server.child.pid}`));

    // The top-up is in the serving process's memory, not only in files written behind its back.
    const usage = await adminCli(dir, '--config', 'config.json', 'usage', 'acme');
    assert.equal((JSON.parse(usage.output) as { wallet: number }).wallet, 3, usage.output);
  });
});
