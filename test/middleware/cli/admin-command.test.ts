import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { adminCli } from '../../support/cli-process.js';
import { RedisServer } from '../../support/redis-server.js';

const CLI = fileURLToPath(new URL('../../../packages/middleware/src/cli.ts', import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** `tollgate admin …` from source in `cwd`; resolves with its exit code and output. */
function admin(cwd: string, ...args: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--conditions=tollgate-source', '--import', TSX, CLI, 'admin', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
}

describe('tollgate admin', function () {
  this.timeout(20_000);
  let dir: string;
  let redis: RedisServer;
  before(async () => {
    redis = await RedisServer.start();
  });
  after(() => redis.close());
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-admin-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('leaves a running server\'s pending-settlements file as it is (same content, same file) on a Redis store', async () => {
    const store = { kind: 'redis', url: redis.url, prefix: 'admin-test:', pendingFile: 'pending.jsonl' };
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ organizations: { acme: { wallet: 3 } }, store }));
    const waiting = `${JSON.stringify({ t: 'pending', id: 'from-the-server', args: ['a'] })}\n`;
    writeFileSync(join(dir, 'pending.jsonl'), waiting);
    const before = statSync(join(dir, 'pending.jsonl')).ino;

    const { code, output } = await admin(dir, '--config', 'config.json', 'usage', 'acme');
    assert.equal(code, 0, output);
    assert.equal((JSON.parse(output) as { wallet: number }).wallet, 3);
    assert.equal(readFileSync(join(dir, 'pending.jsonl'), 'utf8'), waiting);
    assert.equal(statSync(join(dir, 'pending.jsonl')).ino, before, 'not replaced by a rewrite');
  });

  for (const kind of ['memory', 'redis'] as const) {
    it(`refuses a top-up of 1e308 and a prototype organization name with exit code 1, a clear message and nothing changed (${kind} store)`, async () => {
      const store = kind === 'memory' ? { kind, file: 'state.json' } : { kind, url: redis.url, prefix: `admin-edges-${Date.now()}:` };
      writeFileSync(join(dir, 'config.json'), JSON.stringify({ organizations: { acme: { wallet: 3 } }, store }));
      for (const [args, message] of [
        [['topup', 'acme', '1e308'], /A top-up is a positive amount of USD such as 12 or 0\.5/],
        [['topup', 'toString', '1'], /organization name "toString" is reserved/],
      ] as const) {
        const { code, output } = await adminCli(dir, '--config', 'config.json', ...args);
        assert.equal(code, 1, output);
        assert.match(output, message);
        assert.doesNotMatch(output, /\n\s+at /, 'no stack trace');
      }
      assert.equal(JSON.parse((await adminCli(dir, '--config', 'config.json', 'usage', 'acme')).output).wallet, 3);
    });
  }

  it('refuses a payment method other than on|off and scopes other than models, sql, sql:read', async () => {
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ organizations: { acme: {} }, store: { kind: 'memory', file: 'state.json' } }));
    const payment = await adminCli(dir, '--config', 'config.json', 'payment-method', 'acme', 'yes');
    assert.equal(payment.code, 1);
    assert.match(payment.output, /A payment method is "on" or "off" \(got "yes"\)/);
    const scopes = await adminCli(dir, '--config', 'config.json', 'keys', 'create', 'acme', '--scopes', 'models,admin');
    assert.equal(scopes.code, 1);
    assert.match(scopes.output, /Key scopes are a non-empty list of "models", "sql" and "sql:read"/);
  });
});
