import assert from 'node:assert/strict';
import { ConfigError } from '@tollgate/middleware';
import { postJson, startGateway, type RunningGateway } from '../../support/gateway.js';

/**
 * A configured key is matched against `Authorization: Bearer <one word>` or a trimmed `x-api-key`: a key with
 * whitespace in it — typically `${TOLLGATE_KEY}` read from a secret file that ends in a newline — can never be
 * presented. It passed the strength check, and every client holding it got 401 "Invalid API key" forever.
 */
describe('a configured key containing whitespace', () => {
  const KEY = 'tg-prod-key-0001-0123456789abcdef';

  it('is refused at start-up naming keys.0.key (or is usable), never a key that answers 401 to everyone', async () => {
    let gateway: RunningGateway;
    try {
      gateway = await startGateway(
        { keys: [{ key: '${TOLLGATE_KEY}', org: 'acme' }], organizations: { acme: {} }, sql: { databases: { main: { access: { acme: 'write' } } } } },
        { env: { TOLLGATE_KEY: `${KEY}\n` } },
      );
    } catch (error) {
      assert.ok(error instanceof ConfigError, String(error));
      assert.match(error.message, /keys\.0\.key/);
      assert.doesNotMatch(error.message, /0123456789abcdef/, 'the key itself is not printed');
      return;
    }
    try {
      for (const headers of [{ authorization: `Bearer ${KEY}` }, { "x-api-key": KEY }] as Record<string, string>[]) {
        const answer = await postJson(`${gateway.url}/api/sql/query`, { query: 'SELECT 1 AS one' }, headers);
        assert.equal(answer.status, 200, `${JSON.stringify(Object.keys(headers))}: ${answer.text}`);
      }
    } finally {
      await gateway.close();
    }
  });
});
