import assert from 'node:assert/strict';
import { postJson, startGateway, type RunningGateway } from '../../support/gateway.js';

const ACME = 'tg-acme-writer-0001-0123456789abcdef';

/** README "The SQL endpoint": params bind ? placeholders from an array; SQLite's ?NNN names the array's NNNth value. */
describe('numbered ?NNN placeholders with an array of params', () => {
  let gateway: RunningGateway;
  const sql = (body: unknown) => postJson(`${gateway.url}/api/sql/query`, body, { authorization: `Bearer ${ACME}` });

  beforeEach(async () => {
    gateway = await startGateway({ keys: [{ key: ACME, org: 'acme' }], organizations: { acme: {} }, sql: { databases: { main: {} }, default: 'main' } });
  });
  afterEach(async () => {
    await gateway.close();
  });

  it('binds ?1 used twice to the one value given', async () => {
    const { status, body } = await sql({ query: 'SELECT ?1 AS a, ?1 AS b', params: [5] });
    assert.equal(status, 200, JSON.stringify(body));
    assert.deepEqual(body.data, [[5, 5]]);
  });

  it('never answers 200 with a value bound to the wrong placeholder: SELECT ?2, ? with [5, 6]', async () => {
    // SQLite numbers the bare ? after ?2 as ?3: two values for three slots is a parameter_mismatch, never [6, null].
    const { status, body } = await sql({ query: 'SELECT ?2 AS second, ? AS third', params: [5, 6] });
    assert.notDeepEqual(body.data, [[6, null]], 'answered 200 with the second value in ?2 and NULL in the third slot');
    assert.equal(status, 400);
    assert.equal(body.error_code, 'parameter_mismatch');
  });
});
