import assert from 'node:assert/strict';
import { startGateway, TEST_KEY, type RunningGateway } from '../../support/gateway.js';

/** Contract §5 leaves the scheme open: a Bearer key (OpenAI SDK) or x-api-key (Anthropic SDK), whichever is Tollgate's. */
describe('the key a request presents', () => {
  let gateway: RunningGateway;
  before(async () => {
    gateway = await startGateway({ keys: [{ key: TEST_KEY, org: 'acme' }], organizations: { acme: {} } });
  });
  after(() => gateway.close());

  const select = async (headers: Record<string, string>) =>
    (await fetch(`${gateway.url}/api/sql/query`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query: 'SELECT 1 AS one' }) })).status;

  it("is the x-api-key beside an Authorization of another scheme (a proxy's Basic credentials), and 401 without one", async () => {
    assert.equal(await select({ authorization: 'Basic dXNlcjpwYXNz', 'x-api-key': TEST_KEY }), 200);
    assert.equal(await select({ authorization: '', 'x-api-key': TEST_KEY }), 200);
    assert.equal(await select({ authorization: 'Basic dXNlcjpwYXNz' }), 401);
  });

  it('is the Bearer key when both are sent, so a wrong Bearer key is refused whatever x-api-key says', async () => {
    assert.equal(await select({ authorization: `Bearer ${TEST_KEY}`, 'x-api-key': 'tg-some-other-key' }), 200);
    assert.equal(await select({ authorization: 'Bearer tg-not-a-known-key-0123456789', 'x-api-key': TEST_KEY }), 401);
  });
});
