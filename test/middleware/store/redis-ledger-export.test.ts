import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { KeyRing } from '../../../packages/middleware/src/auth/index.js';
import { parseConfig, type ConfigInput } from '../../../packages/middleware/src/config/index.js';
import { type AdmissionRequest } from '../../../packages/middleware/src/policy/index.js';
import { createPolicy } from '../../../packages/middleware/src/store/index.js';
import { readLedger, type LedgerLine } from '../../../packages/middleware/src/store/index.js';
import { RedisServer } from '../../support/redis-server.js';
import { TestClock } from '../policy/policy-fixture.js';

const request: AdmissionRequest = { principal: { keyId: 'k1', org: 'acme', scopes: ['models'] }, alias: 'gpt', billing: 'wallet', price: { input: 2.5, output: 10 }, estimatedInputTokens: 10, maxOutputTokens: 64 };
/** 10 input + 20 output tokens at 2.5 / 10 USD per million: 225 micro-dollars. */
const COST = 225;

describe('Redis ledger export to ledger files (store.ledger)', function () {
  let redis: RedisServer;
  let client: Redis;
  let dir: string;
  let prefix: string;
  const open: { close(): Promise<void> }[] = [];

  before(async () => {
    redis = await RedisServer.start();
    client = new Redis(redis.url);
  });
  after(async () => {
    client.disconnect();
    await redis.close();
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-export-'));
    prefix = `x${Math.random().toString(36).slice(2)}:`;
  });
  afterEach(async () => {
    for (const policy of open.splice(0)) await policy.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function start(ledger: Extract<ConfigInput['store'], { kind: 'redis' }>['ledger'], logged: string[] = []) {
    const { config } = parseConfig({ organizations: { acme: { wallet: 10 } }, store: { kind: 'redis', url: redis.url, prefix, ledger }, policyTimeoutMs: 500 }, {});
    const { policy, admin } = await createPolicy({ config, keys: new KeyRing(), clock: new TestClock(), baseDir: dir, logger: { error: (message) => logged.push(message) } });
    open.push(policy);
    return { policy, admin };
  }

  async function settle(policy: Awaited<ReturnType<typeof start>>['policy'], count: number): Promise<void> {
    for (let i = 0; i < count; i++) await (await policy.admit(request)).settle({ inputTokens: 10, outputTokens: 20 });
  }

  const streamLength = () => client.xlen(`${prefix}{acme}:ledger`);
  async function onFile(ledgerDir: string): Promise<LedgerLine[]> {
    const lines: LedgerLine[] = [];
    for await (const line of readLedger(ledgerDir, { org: 'acme' })) lines.push(line);
    return lines;
  }
  async function until(condition: () => Promise<boolean>): Promise<void> {
    for (let i = 0; i < 300 && !(await condition()); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.ok(await condition(), 'condition not reached in 3 s');
  }

  it('moves settlements from the organization\'s stream into the ledger files and trims the stream', async () => {
    const { policy, admin } = await start({ dir: 'ledger', exportEveryMs: 20 });
    await settle(policy, 5);
    await until(async () => (await streamLength()) === 0);
    const lines = await onFile(join(dir, 'ledger'));
    assert.equal(lines.length, 5);
    assert.equal(new Set(lines.map((line) => line.id)).size, 5);
    assert.deepEqual([...new Set(lines.map((line) => [line.org, line.keyId, line.alias, line.in, line.out, line.cost].join()))], [`acme,k1,gpt,10,20,${COST}`]);
    assert.equal(Math.round((10 - (await admin.usage('acme')).wallet) * 1e6), 5 * COST, 'the balance is untouched by the export');
  });

  it('exports what is left when the server stops, and keeps the stream whole with ledger: false', async () => {
    const exporting = await start({ dir: 'ledger', exportEveryMs: 60_000 });
    await settle(exporting.policy, 3);
    assert.equal(await streamLength(), 3, 'nothing exported before the first interval');
    await exporting.policy.close();
    open.splice(0);
    assert.equal(await streamLength(), 0);
    assert.equal((await onFile(join(dir, 'ledger'))).length, 3);

    const keeping = await start(false);
    await settle(keeping.policy, 2);
    await keeping.policy.close();
    open.splice(0);
    assert.equal(await streamLength(), 2);
  });

  it('trims nothing while the ledger directory cannot be written, and catches up once it can', async () => {
    writeFileSync(join(dir, 'ledger'), 'a file where the directory should be');
    const logged: string[] = [];
    const { policy } = await start({ dir: 'ledger', exportEveryMs: 20 }, logged);
    await settle(policy, 4);
    await until(async () => logged.length > 0);
    assert.match(logged[0]!, /^ledger export: acme stays in Redis for now/);
    assert.equal(await streamLength(), 4);
    rmSync(join(dir, 'ledger'));
    await until(async () => (await streamLength()) === 0);
    assert.equal((await onFile(join(dir, 'ledger'))).length, 4);
  });

  it('neither loses nor repeats a settlement when the exporter is SIGKILLed between writing the files and trimming', async function () {
    this.timeout(15_000);
    const writer = await start(false);
    await settle(writer.policy, 40);
    const ledgerDir = join(dir, 'ledger');
    const child = fork(fileURLToPath(new URL('./export-child.mjs', import.meta.url)), [ledgerDir, redis.url, prefix], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const reported = await new Promise<string>((resolve, reject) => {
      child.once('message', (message) => resolve(String(message)));
      child.once('exit', (code) => reject(new Error(`the child exited with ${code} before exporting`)));
    });
    const killed = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await killed;
    assert.equal(reported, 'exported 40');
    assert.equal((await onFile(ledgerDir)).length, 40, 'the lines were durable before the kill');
    assert.equal(await streamLength(), 40, 'and the stream was not trimmed yet');

    // More settlements arrive meanwhile; the next exporter on the same directory takes over.
    await settle(writer.policy, 10);
    await writer.policy.close();
    open.splice(0);
    const next = await start({ dir: 'ledger', exportEveryMs: 20 });
    await until(async () => (await streamLength()) === 0);
    const lines = await onFile(ledgerDir);
    assert.equal(lines.length, 50);
    assert.equal(new Set(lines.map((line) => line.id)).size, 50, 'no settlement twice');
    assert.equal(lines.reduce((sum, line) => sum + line.cost, 0), 50 * COST);
    assert.equal((await next.admin.usage('acme')).requests, 50);
  });
});
