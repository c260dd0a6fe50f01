import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startFakeOpenAI } from '../../fakes/index.js';

const CLI = fileURLToPath(new URL('../../../packages/middleware/src/cli.ts', import.meta.url));
// The child runs in a temporary directory, so name tsx's loader by its absolute location.
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const RUN_SOURCE = ['--conditions=tollgate-source', '--import', TSX, CLI];

interface Running {
  child: ChildProcess;
  output: () => string;
  url: string;
}

/** `tollgate serve` from source in `cwd`, on a free port; resolves once it prints its address. */
function serve(cwd: string, ...args: string[]): Promise<Running> {
  const child = spawn(process.execPath, [...RUN_SOURCE, 'serve', '--port', '0', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', () => {
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      // On the embedded default the key and the curl example follow the address: wait for them.
      if (url && (args.includes('--config') || output.includes('curl'))) resolve({ child, output: () => output, url });
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${output}`)));
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', resolve)));
}

async function sql(url: string, key: string, query: string) {
  const response = await fetch(`${url}/api/sql/query`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
  return { status: response.status, body: (await response.json()) as any };
}

describe('tollgate serve', function () {
  this.timeout(30_000);
  let cwd: string;
  let running: Running | undefined;
  beforeEach(() => {
    cwd = mkdtempSync(join(tmpdir(), 'tollgate-serve-'));
  });
  afterEach(async () => {
    if (running && running.child.exitCode === null) {
      running.child.kill('SIGKILL');
      await exited(running.child);
    }
    running = undefined;
    rmSync(cwd, { recursive: true, force: true });
  });

  it('starts on the embedded default, prints a development key with a curl example, and keeps key and data across a graceful restart', async () => {
    running = await serve(cwd);
    const key = /Development key[^:]*: (\S+)/.exec(running.output())?.[1];
    assert.ok(key, running.output());
    assert.match(running.output(), new RegExp(`curl -s ${running.url}/api/sql/query -H 'Authorization: Bearer ${key}'`));
    assert.equal((await sql(running.url, key, 'CREATE TABLE notes(body TEXT); INSERT INTO notes VALUES (\'kept\')')).status, 200);

    running.child.kill('SIGTERM');
    assert.equal(await exited(running.child), 0, 'SIGTERM shuts down cleanly');

    running = await serve(cwd);
    assert.doesNotMatch(running.output(), new RegExp(key), 'the key is shown only when it is made');
    assert.match(running.output(), /Development key: in data\/dev-key/);
    assert.deepEqual((await sql(running.url, key, 'SELECT body FROM notes')).body.data, [['kept']]);
    assert.equal((await sql(running.url, 'tg-not-a-key-000000', 'SELECT 1')).status, 401);
  });

  it('starts although one database cannot load: that one answers 503 database_unavailable, the others serve', async () => {
    writeFileSync(join(cwd, 'broken.sqlite'), 'this is not a database, just a text file that is long enough to have a header');
    const file = join(cwd, 'config.json');
    const key = 'tg-serve-key-000000001-0123456789abcdef';
    writeFileSync(file, JSON.stringify({ keys: [{ key, org: 'acme' }], organizations: { acme: {} }, sql: { databases: { main: { file: 'main.sqlite' }, broken: { file: 'broken.sqlite' } } } }));
    running = await serve(cwd, '--config', file);
    assert.match(running.output(), /Warning: Database "broken" could not be loaded/);
    assert.equal((await sql(running.url, key, 'SELECT 1 AS one')).status, 200);
    const broken = await fetch(`${running.url}/api/sql/query`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ query: 'SELECT 1', context: { db: 'broken' } }) });
    assert.equal(broken.status, 503);
    assert.equal(((await broken.json()) as { error_code: string }).error_code, 'database_unavailable');
  });

  it('exits with code 1 and the field-naming message, no stack trace, for a bad config file', async () => {
    const file = join(cwd, 'bad.json');
    writeFileSync(file, JSON.stringify({ sql: { maxRows: 'many' } }));
    const child = spawn(process.execPath, [...RUN_SOURCE, 'serve', '--config', file, '--port', '0'], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    assert.equal(await exited(child), 1);
    assert.match(stderr, /maxRows/);
    assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');
  });

  it('answers 400 model_not_configured, and never calls upstream, for a provider whose ${NAME} apiKey is unset', async () => {
    const openai = await startFakeOpenAI();
    try {
      const file = join(cwd, 'tollgate.config.json');
      writeFileSync(file, JSON.stringify({
        defaultCatalog: false,
        keys: [{ key: 'tg-cli-test-key-0001-0123456789abcdef', org: 'acme' }],
        organizations: { acme: { wallet: 10 } },
        providers: { openai: { kind: 'openai', baseUrl: openai.baseUrl, apiKey: '${TOLLGATE_TEST_NEVER_SET}' } },
        models: { gpt: { routes: [{ provider: 'openai', model: 'gpt-4o' }] } },
      }));
      running = await serve(cwd, '--config', file);
      const response = await fetch(`${running.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer tg-cli-test-key-0001-0123456789abcdef', 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }] }) });
      assert.equal(response.status, 400);
      assert.equal(((await response.json()) as { error: { code: string } }).error.code, 'model_not_configured');
      assert.equal(openai.requests.length, 0, 'nothing reached upstream unauthenticated');
    } finally {
      await openai.close();
    }
  });
});
