import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
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

  it('migrates an old-format journal on first use: usage agrees before and after, and the ledger exports and sums its settlements', async function () {
    this.timeout(60_000); // seven runs of the CLI
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ organizations: { acme: { wallet: 5 }, globex: { wallet: 1 } }, store: { kind: 'memory', file: 'data/state.json' } }));
    // What the store wrote before snapshots: one journal of every change, settlements included.
    const day = (d: number) => Date.parse(`2026-11-${String(d).padStart(2, '0')}T12:00:00Z`);
    const old = [
      { t: 'open', at: day(1), org: 'acme', micros: 5_000_000, payment: false },
      { t: 'open', at: day(1), org: 'globex', micros: 1_000_000, payment: false },
      { t: 'topup', at: day(2), org: 'acme', micros: 2_500_000 },
      { t: 'settle', id: 's1', at: day(3), org: 'acme', keyId: 'k1', alias: 'gpt-4o', in: 100, out: 50, included: 0, cost: 750 },
      { t: 'settle', id: 's2', at: day(4), org: 'globex', keyId: 'k2', alias: 'claude, "sonnet"', in: 10, out: 5, included: 0, cost: 105 },
      { t: 'payment', at: day(4), org: 'acme', value: true },
      { t: 'settle', id: 's3', at: day(5), org: 'acme', keyId: 'k1', alias: 'gpt-4o', in: 1000, out: 200, included: 0, cost: 4_500 },
      { t: 'settle', id: 's4', at: day(6), org: 'acme', keyId: 'k1', alias: 'gpt-4o', in: 1, out: 1, included: 0, cost: 13 },
    ];
    mkdirSync(join(dir, 'data'));
    writeFileSync(join(dir, 'data', 'state.json'), `${old.map((line) => JSON.stringify(line)).join('\n')}\n{"t":"settle","id":"torn`);
    // What the old store answered for this journal: opening + top-up − costs, and the totals of acme's three settlements.
    const expected = { wallet: 7.494737, paymentMethod: true, requests: 3, inputTokens: 1101, outputTokens: 251, costUsd: 0.005263 };
    const usage = async () => {
      const { code, output } = await adminCli(dir, '--config', 'config.json', 'usage', 'acme');
      assert.equal(code, 0, output);
      const { wallet, paymentMethod, requests, inputTokens, outputTokens, costUsd } = JSON.parse(output) as typeof expected;
      return { wallet, paymentMethod, requests, inputTokens, outputTokens, costUsd };
    };

    assert.deepEqual(await usage(), expected, 'the first use migrates and answers what the old journal says');
    assert.deepEqual(await usage(), expected, 'later uses read the snapshot and agree');
    assert.match(readFileSync(join(dir, 'data', 'state.json'), 'utf8'), /^\{"format":"tollgate-memory-store"/);

    const csv = await adminCli(dir, '--config', 'config.json', 'ledger', '--from', '2026-11-03', '--to', '2026-11-06');
    assert.equal(csv.code, 0, csv.output);
    assert.equal(
      csv.output,
      [
        'id,at,org,key_id,alias,input_tokens,output_tokens,included_tokens,cost_usd',
        's1,2026-11-03T12:00:00.000Z,acme,k1,gpt-4o,100,50,0,0.000750',
        's2,2026-11-04T12:00:00.000Z,globex,k2,"claude, ""sonnet""",10,5,0,0.000105',
        's3,2026-11-05T12:00:00.000Z,acme,k1,gpt-4o,1000,200,0,0.004500',
        '',
      ].join('\n'),
    );
    const jsonl = await adminCli(dir, '--config', 'config.json', 'ledger', '--org', 'acme', '--format', 'jsonl', '--from', '2026-11-05');
    assert.deepEqual(jsonl.output.trim().split('\n').map((line) => (JSON.parse(line) as { id: string }).id), ['s3', 's4']);
    const sum = await adminCli(dir, '--config', 'config.json', 'ledger', '--sum');
    assert.deepEqual(JSON.parse(sum.output), {
      acme: { requests: 3, inputTokens: 1101, outputTokens: 251, includedTokens: 0, costUsd: 0.005263 },
      globex: { requests: 1, inputTokens: 10, outputTokens: 5, includedTokens: 0, costUsd: 0.000105 },
    });
    const bad = await adminCli(dir, '--config', 'config.json', 'ledger', '--from', 'last tuesday');
    assert.equal(bad.code, 1);
    assert.match(bad.output, /--from must be an ISO date or instant/);

    assert.equal(statSync(join(dir, 'data', 'state.json')).mode & 0o777, 0o600);
    assert.equal(statSync(join(dir, 'data', 'state.json.ledger')).mode & 0o777, 0o700);
    for (const name of readdirSync(join(dir, 'data', 'state.json.ledger'))) assert.equal(statSync(join(dir, 'data', 'state.json.ledger', name)).mode & 0o777, 0o600, name);
  });
});
