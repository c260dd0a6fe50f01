import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { startGateway, TEST_KEY, type RunningGateway } from '../../support/gateway.js';

/** One connection, reused: authentication keeps a key's hash with its connection, and must stay exact. */
describe('authentication on a keep-alive connection', () => {
  let gateway: RunningGateway;
  let agent: Agent;
  beforeEach(async () => {
    gateway = await startGateway({ keys: [{ key: TEST_KEY, org: 'acme' }], organizations: { acme: {} } });
    agent = new Agent({ keepAlive: true, maxSockets: 1 });
  });
  afterEach(async () => {
    agent.destroy();
    await gateway.close();
  });

  const select = (key: string) =>
    new Promise<{ status: number; reusedSocket: boolean }>((resolve, reject) => {
      const req = request(`${gateway.url}/api/sql/query`, { method: 'POST', agent, headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` } }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, reusedSocket: req.reusedSocket }));
      });
      req.on('error', reject);
      req.end(JSON.stringify({ query: 'SELECT 1 AS one' }));
    });

  it('checks each key presented on the connection, and refuses a key revoked between two of its requests', async () => {
    const { key: second } = await gateway.gate.admin.createKey('acme', ['sql']);
    assert.deepEqual(await select(TEST_KEY), { status: 200, reusedSocket: false });
    assert.deepEqual(await select(second), { status: 200, reusedSocket: true });
    assert.deepEqual(await select('tg-not-a-key'), { status: 401, reusedSocket: true });
    assert.deepEqual(await select(second), { status: 200, reusedSocket: true });
    await gateway.gate.admin.revokeKey(second);
    assert.deepEqual(await select(second), { status: 401, reusedSocket: true });
    assert.deepEqual(await select(TEST_KEY), { status: 200, reusedSocket: true });
  });
});
