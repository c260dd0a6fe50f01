import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveCli, type ServingCli } from '../../support/cli-process.js';

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

describe('files tollgate serve creates in its data directory', function () {
  this.timeout(60_000);
  let cwd: string;
  let server: ServingCli | undefined;
  beforeEach(() => {
    cwd = mkdtempSync(join(tmpdir(), 'tollgate-modes-'));
  });
  afterEach(async () => {
    await server?.stop('SIGKILL');
    server = undefined;
    rmSync(cwd, { recursive: true, force: true });
  });

  it('are readable by their owner only: the directory 0700, the database, state, key, secret and lock 0600', async () => {
    server = await serveCli(cwd);
    const key = /Development key[^:]*: (\S+)/.exec(server.output())![1]!;
    const write = await fetch(`${server.url}/api/sql/query`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ query: 'CREATE TABLE t(x)' }) });
    assert.equal(write.status, 200);
    assert.equal(modeOf(join(cwd, 'data')), '700');
    for (const file of ['dev-key', 'main.sqlite', 'state.json', 'state.json.lock', 'state.json.key-id-secret']) assert.equal(modeOf(join(cwd, 'data', file)), '600', file);
  });

  it('narrows a state file an earlier version left world-readable', async () => {
    mkdirSync(join(cwd, 'data'));
    writeFileSync(join(cwd, 'data', 'state.json'), '');
    chmodSync(join(cwd, 'data', 'state.json'), 0o644);
    server = await serveCli(cwd);
    assert.equal(modeOf(join(cwd, 'data', 'state.json')), '600');
  });
});
