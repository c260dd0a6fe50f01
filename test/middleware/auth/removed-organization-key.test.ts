import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConfigInput } from '@tollgate/middleware';
import { postJson, startGateway } from '../../support/gateway.js';
import { chatCompletion, sendJson, startScripted } from '../../support/scripted-provider.js';

const ACME = 'tg-acme-writer-0001-0123456789abcdef';

/**
 * An organization removed from the config (a customer that left) keeps its created keys in the store's journal.
 * The model endpoints answer such a key 401 ("The key's organization no longer exists"); the SQL endpoint must
 * too, instead of letting it read every database granted to "*" and write every database without a grant.
 */
describe('a key whose organization was removed from the config', () => {
  let dir: string;
  let provider: Awaited<ReturnType<typeof startScripted>>;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-gone-org-'));
    provider = await startScripted((_req, res) => sendJson(res, 200, chatCompletion('hi', { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 })));
  });
  afterEach(async () => {
    await provider.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function config(organizations: Record<string, object>): ConfigInput {
    return {
      keys: [{ key: ACME, org: 'acme' }],
      organizations,
      store: { kind: 'memory', file: 'state.json' },
      defaultCatalog: false,
      providers: { fake: { kind: 'openai', baseUrl: provider.baseUrl, apiKey: 'sk-fake-provider-key' } },
      models: { gpt: { routes: [{ provider: 'fake', model: 'gpt-4o' }], price: { input: 0, output: 0 } } },
      sql: { databases: { shared: { file: 'shared.sqlite', access: { '*': 'read', acme: 'write' } }, scratch: { file: 'scratch.sqlite' } }, default: 'shared' },
    } as ConfigInput;
  }

  it('is refused with 401 on the SQL endpoint, as on the model endpoints, and reads or writes nothing', async () => {
    let gateway = await startGateway(config({ acme: { wallet: 10 }, globex: { wallet: 10 } }), { baseDir: dir });
    const { key: globexKey } = await gateway.gate.admin.createKey('globex', ['models', 'sql']);
    assert.equal((await postJson(`${gateway.url}/api/sql/query`, { query: "CREATE TABLE notes(v); INSERT INTO notes VALUES ('acme internal')" }, { authorization: `Bearer ${ACME}` })).status, 200);
    await gateway.close();

    // globex is gone from the config; its created key was never revoked.
    gateway = await startGateway(config({ acme: { wallet: 10 } }), { baseDir: dir });
    try {
      const auth = { authorization: `Bearer ${globexKey}` };
      const chat = await postJson(`${gateway.url}/v1/chat/completions`, { model: 'gpt', messages: [{ role: 'user', content: 'hi' }] }, auth);
      assert.equal(chat.status, 401, 'the model endpoint refuses the key of an organization that no longer exists');

      const read = await postJson(`${gateway.url}/api/sql/query`, { query: 'SELECT v FROM notes' }, auth);
      assert.equal(read.status, 401, `the SQL endpoint answered ${read.status} ${read.text}`);
      assert.doesNotMatch(read.text, /acme internal/);

      const write = await postJson(`${gateway.url}/api/sql/query`, { query: 'CREATE TABLE planted(x)', context: { db: 'scratch' } }, auth);
      assert.equal(write.status, 401, `the SQL endpoint answered ${write.status} ${write.text}`);
      const tables = await postJson(`${gateway.url}/api/sql/query`, { query: "SELECT count(*) FROM sqlite_schema WHERE name = 'planted'", context: { db: 'scratch' } }, { authorization: `Bearer ${ACME}` });
      assert.deepEqual(tables.body.data, [[0]]);
    } finally {
      await gateway.close();
    }
  });
});
