import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../../packages/middleware/dist/cli.js', import.meta.url));

/**
 * `tollgate admin ledger | head`, or any reader that stops early (a pager quit, a script that found what it looked
 * for): the export streams "any size", so the reader leaving is part of normal use. The command must stop quietly,
 * not die on an unhandled EPIPE with a Node stack trace on the operator's terminal.
 */
describe('tollgate admin ledger into a reader that stops early', function () {
  this.timeout(20_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-hunt-ledger-pipe-'));
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ organizations: { acme: { wallet: 5 } }, store: { kind: 'memory', file: 'data/state.json' } }));
    const start = Date.parse('2026-11-01T00:00:00Z');
    let text = '';
    for (let i = 0; i < 20_000; i++) text += `${JSON.stringify({ t: 'settle', id: `s${i}`, at: start + i * 1000, org: 'acme', keyId: 'k1', alias: 'gpt-4o', in: 10, out: 5, included: 0, cost: 123 })}\n`;
    mkdirSync(join(dir, 'data', 'state.json.ledger'), { recursive: true });
    writeFileSync(join(dir, 'data', 'state.json.ledger', '20261101T000000000Z-0001.jsonl'), text);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  for (const format of ['csv', 'jsonl']) {
    it(`stops quietly when its reader closes the pipe after the first lines (${format}): no unhandled EPIPE, no stack trace`, async () => {
      const child = spawn(process.execPath, [CLI, 'admin', '--config', 'config.json', 'ledger', '--format', format], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
      // Like `head -1`: read the first chunk, then go away.
      child.stdout!.once('data', () => child.stdout!.destroy());
      const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
      assert.equal(stderr, '', `the operator sees:\n${stderr}`);
      assert.notEqual(code, null, 'it exits by itself');
    });
  }
});
