import assert from 'node:assert/strict';
import { ConfigError, type ConfigInput } from '@tollgate/middleware';
import { postJson, startGateway, TEST_KEY, type RunningGateway } from '../../support/gateway.js';

/**
 * The start-up reference checks used `name in object`, which also finds Object.prototype's members: a route to
 * provider "constructor" or a `sql.default` of "toString" passed as declared. The gateway then started and
 * answered the first request with `500 {"detail":"Internal server error"}` (No provider definition for kind
 * "undefined"), or sent every default-database query to a database that does not exist.
 */
describe('names inherited from Object.prototype in cross-references', () => {
  async function startOrRefuse(config: ConfigInput, field: RegExp): Promise<RunningGateway | undefined> {
    try {
      return await startGateway(config);
    } catch (error) {
      assert.ok(error instanceof ConfigError, String(error));
      assert.match(error.message, field);
      return undefined;
    }
  }

  it('a route to provider "constructor" is a config error naming the route, never a 500 on the first request', async () => {
    const gateway = await startOrRefuse(
      { keys: [{ key: TEST_KEY, org: 'acme' }], organizations: { acme: { wallet: 10 } }, models: { m: { routes: [{ provider: 'constructor', model: 'gpt-4o' }] } }, defaultCatalog: false },
      /models\.m\.routes\.0\.provider: provider "constructor" is not declared/,
    );
    if (!gateway) return;
    try {
      const answer = await postJson(`${gateway.url}/v1/chat/completions`, { model: 'm', messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${TEST_KEY}` });
      assert.notEqual(answer.status, 500, answer.text);
    } finally {
      await gateway.close();
    }
  });

  it('a sql.default of "toString" is a config error naming sql.default, like any other undeclared database', async () => {
    const gateway = await startOrRefuse({ keys: [{ key: TEST_KEY, org: 'acme' }], organizations: { acme: {} }, sql: { databases: { main: { access: { acme: 'write' } } }, default: 'toString' } }, /sql\.default/);
    if (!gateway) return;
    try {
      const answer = await postJson(`${gateway.url}/api/sql/query`, { query: 'SELECT 1 AS one' }, { authorization: `Bearer ${TEST_KEY}` });
      assert.equal(answer.status, 200, answer.text);
    } finally {
      await gateway.close();
    }
  });
});
