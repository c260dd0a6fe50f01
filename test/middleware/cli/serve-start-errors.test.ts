import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminCli, serveCli } from '../../support/cli-process.js';

/** A stack frame line, as Node prints an uncaught error. */
const STACK_FRAME = /^\s+at .+:\d+:\d+\)?$/m;

/** `tollgate serve` that must refuse to start: its exit code and everything it printed. */
async function refusedServe(cwd: string, ...args: string[]): Promise<{ code: number | null; output: string }> {
  const started = await serveCli(cwd, ...args).then(
    async (running) => {
      await running.stop('SIGKILL');
      return undefined;
    },
    (refusal: { code: number | null; output: string }) => refusal,
  );
  assert.ok(started, 'serve started, but should have refused');
  return started;
}

/**
 * README "Command line": a wrong flag or a machine that refuses what start-up needs (a port, a data directory,
 * an intact store) is one clear message and exit code 1, never an uncaught exception's stack trace.
 */
describe('tollgate serve refusing to start', function () {
  this.timeout(60_000);
  let cwd: string;
  let busy: Server | undefined;
  beforeEach(() => {
    cwd = mkdtempSync(join(tmpdir(), 'tollgate-start-errors-'));
  });
  afterEach(async () => {
    if (busy) await new Promise((resolve) => busy!.close(resolve));
    busy = undefined;
    rmSync(cwd, { recursive: true, force: true });
  });

  for (const port of ['abc', '99999', '-1', '80.5']) {
    it(`exits 1 naming the port, no stack trace, for --port ${port}`, async () => {
      const { code, output } = await refusedServe(cwd, '--port', port);
      assert.equal(code, 1, output);
      assert.match(output, /'-p, --port <port>' argument '[^']+' is invalid\. a port is a whole number from 0 to 65535/);
      assert.doesNotMatch(output, STACK_FRAME, output);
    });
  }

  it('exits 1 saying the address is in use, no stack trace, when another process listens on the port', async () => {
    busy = createServer();
    await new Promise<void>((resolve) => busy!.listen(0, '127.0.0.1', resolve));
    const { port } = busy.address() as { port: number };
    const { code, output } = await refusedServe(cwd, '--port', String(port));
    assert.equal(code, 1, output);
    assert.match(output, new RegExp(`Cannot listen on 127\\.0\\.0\\.1:${port}: the address is in use by another process`));
    assert.doesNotMatch(output, STACK_FRAME, output);
    // The store's lock was let go: the next start on the same data directory serves.
    const running = await serveCli(cwd);
    await running.stop();
  });

  it('exits 1 naming a damaged state.json, no stack trace', async () => {
    mkdirSync(join(cwd, 'data')); // tollgate admin works on an installation's directory, never makes one
    assert.equal((await adminCli(cwd, 'topup', 'local', '5')).code, 0);
    const file = join(cwd, 'data', 'state.json');
    writeFileSync(file, readFileSync(file, 'utf8').slice(0, 60));
    const { code, output } = await refusedServe(cwd);
    assert.equal(code, 1, output);
    assert.match(output, /state\.json is not a readable Tollgate snapshot/);
    assert.doesNotMatch(output, STACK_FRAME, output);
  });

  it('exits 1 naming a --data path it cannot make, no stack trace', async () => {
    writeFileSync(join(cwd, 'not-a-dir'), 'x');
    const { code, output } = await refusedServe(cwd, '--data', 'not-a-dir/data');
    assert.equal(code, 1, output);
    assert.match(output, /^tollgate: .*ENOTDIR.*not-a-dir/m);
    assert.doesNotMatch(output, STACK_FRAME, output);
  });
});
