import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminCli, serveCli, type ServingCli } from '../../support/cli-process.js';

const KEY = 'tg-admin-while-serving-0123456789abcdef';

async function sql(url: string, key: string) {
  const response = await fetch(`${url}/api/sql/query`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ query: 'SELECT 1 AS one' }) });
  return response.status;
}

describe('tollgate admin while a server holds the memory store', function () {
  this.timeout(60_000);
  let dir: string;
  const running: ServingCli[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-admin-serving-'));
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ keys: [{ key: KEY, org: 'acme' }], organizations: { acme: { wallet: 1 } }, store: { kind: 'memory', file: 'data/state.json' } }));
  });
  afterEach(async () => {
    for (const server of running.splice(0)) await server.stop('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('revokes a key in the running server: its very next request answers 401, and the revocation outlives a restart', async () => {
    const server = await serveCli(dir, '--config', 'config.json');
    running.push(server);
    assert.equal(await sql(server.url, KEY), 200);

    const revoked = await adminCli(dir, '--config', 'config.json', 'keys', 'revoke', KEY);
    assert.equal(revoked.code, 0, revoked.output);
    assert.deepEqual(JSON.parse(revoked.output), { revoked: true });
    assert.equal(await sql(server.url, KEY), 401, 'the server refuses the key at once');

    assert.equal(await server.stop('SIGTERM'), 0);
    running.splice(0);
    const restarted = await serveCli(dir, '--config', 'config.json');
    running.push(restarted);
    assert.equal(await sql(restarted.url, KEY), 401, 'the server journalled it');
  });

  it('tops up, reports usage and creates keys through the running server, which serves the new key at once', async () => {
    const server = await serveCli(dir, '--config', 'config.json');
    running.push(server);
    const topped = await adminCli(dir, '--config', 'config.json', 'topup', 'acme', '2.5');
    assert.equal(topped.code, 0, topped.output);
    assert.deepEqual(JSON.parse(topped.output), { wallet: 3.5 });
    const created = await adminCli(dir, '--config', 'config.json', 'keys', 'create', 'acme', '--scopes', 'sql');
    assert.equal(created.code, 0, created.output);
    const { key } = JSON.parse(created.output) as { key: string };
    assert.equal(await sql(server.url, key), 200);
    const usage = await adminCli(dir, '--config', 'config.json', 'usage', 'acme');
    assert.equal((JSON.parse(usage.output) as { wallet: number }).wallet, 3.5);

    const refused = await adminCli(dir, '--config', 'config.json', 'topup', 'acme', '1e308');
    assert.equal(refused.code, 1);
    assert.match(refused.output, /top-up is a positive amount of USD/);
    assert.doesNotMatch(refused.output, /\n\s+at /, 'no stack trace');
  });

  it('refuses a second server on the same store file with a clear message, and leaves the first one serving', async () => {
    const server = await serveCli(dir, '--config', 'config.json');
    running.push(server);
    const second = await serveCli(dir, '--config', 'config.json').then(
      () => assert.fail('a second server started'),
      (error: { code: number; output: string }) => error,
    );
    assert.equal(second.code, 1);
    assert.match(second.output, new RegExp(`memory store .*state\\.json is in use by process ${server.child.pid}`));
    assert.doesNotMatch(second.output, /\n\s+at /, 'no stack trace');
    assert.equal(await sql(server.url, KEY), 200);
  });

  it('takes over the store of a server that was killed, so admin and the next server work without it', async () => {
    const server = await serveCli(dir, '--config', 'config.json');
    await server.stop('SIGKILL');
    assert.ok(existsSync(join(dir, 'data/state.json.lock')), 'a killed server leaves its lock behind');

    const revoked = await adminCli(dir, '--config', 'config.json', 'keys', 'revoke', KEY);
    assert.equal(revoked.code, 0, revoked.output);
    assert.deepEqual(JSON.parse(revoked.output), { revoked: true });
    assert.ok(!existsSync(join(dir, 'data/state.json.lock')), 'the command let go of the store');

    const next = await serveCli(dir, '--config', 'config.json');
    running.push(next);
    assert.equal(await sql(next.url, KEY), 401);
    assert.equal(JSON.parse(readFileSync(join(dir, 'data/state.json.lock'), 'utf8')).pid, next.child.pid);
  });
});
