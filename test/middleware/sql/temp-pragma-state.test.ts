import assert from 'node:assert/strict';
import { postJson, startGateway, type RunningGateway } from '../../support/gateway.js';

const ACME = 'tg-acme-writer-0001-0123456789abcdef';
const GLOBEX = 'tg-globex-writer-0001-0123456789abcdef';

/**
 * README "Statement policy": nothing a request does may outlive it except the data it commits; only
 * user_version and application_id may be set, *because they are data in the database file*.
 */
describe('PRAGMA temp.user_version / temp.application_id', () => {
  let gateway: RunningGateway;
  const sql = (key: string, query: string) => postJson(`${gateway.url}/api/sql/query`, { query }, { authorization: `Bearer ${key}` });

  beforeEach(async () => {
    gateway = await startGateway({ keys: [{ key: ACME, org: 'acme' }, { key: GLOBEX, org: 'globex' }], organizations: { acme: {}, globex: {} }, sql: { databases: { main: { access: { acme: 'write', globex: 'write' } } }, default: 'main' } });
  });
  afterEach(async () => {
    await gateway.close();
  });

  for (const pragma of ['user_version', 'application_id']) {
    it(`refuses setting temp.${pragma}, which is connection state another organization's request then reads`, async () => {
      const set = await sql(ACME, `PRAGMA temp.${pragma} = 77`);
      const seen = await sql(GLOBEX, `PRAGMA temp.${pragma}`);
      assert.deepEqual(seen.body.data, [[0]], "globex's request reads what acme's request left on the shared connection");
      assert.equal(set.status, 400);
      assert.ok(['temp_object_not_allowed', 'pragma_not_allowed'].includes(set.body.error_code), set.body.error_code);
    });
  }
});
