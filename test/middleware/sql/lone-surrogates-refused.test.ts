import assert from 'node:assert/strict';
import { postJson, startGateway, type RunningGateway } from '../../support/gateway.js';

const ACME = 'tg-acme-writer-0001-0123456789abcdef';

/**
 * JSON can carry a lone UTF-16 surrogate (`"\ud800"`), SQLite's UTF-8 text cannot: a statement holding one answered
 * an internal message, a parameter was stored as three U+FFFD characters. Both are refused now, nothing written.
 */
describe('SQL text or parameters holding a lone UTF-16 surrogate', () => {
  let gateway: RunningGateway;
  // Raw bodies: JSON.stringify would write the escape too, but the test shows the bytes sent.
  const sql = (text: string) => postJson(`${gateway.url}/api/sql/query`, text, { authorization: `Bearer ${ACME}` });

  beforeEach(async () => {
    gateway = await startGateway({ keys: [{ key: ACME, org: 'acme' }], organizations: { acme: {} }, sql: { databases: { main: {} }, default: 'main' } });
    assert.equal((await sql('{"query":"CREATE TABLE t(x)"}')).status, 200);
  });
  afterEach(async () => {
    await gateway.close();
  });

  const rows = async () => (await sql('{"query":"SELECT count(*) FROM t"}')).body.data[0][0];

  for (const [what, text, loc] of [
    ['in the statement', '{"query":"INSERT INTO t VALUES (1); INSERT INTO t VALUES (\'\\ud800\')"}', ['body', 'query']],
    ['in a positional parameter', '{"query":"INSERT INTO t VALUES (?)","params":["a\\udc00b"]}', ['body', 'params', 0]],
    ['in a named parameter', '{"query":"INSERT INTO t VALUES (:v)","params":{":v":"\\ud83d"}}', ['body', 'params', ':v']],
  ] as const) {
    it(`${what}: 422 naming where it is and why, nothing written`, async () => {
      const { status, body } = await sql(text);
      assert.equal(status, 422, JSON.stringify(body));
      const issue = JSON.stringify(body);
      assert.match(issue, /lone UTF-16 surrogate/);
      assert.ok(issue.includes(JSON.stringify(loc).slice(1, -1)), `${issue} does not name ${JSON.stringify(loc)}`);
      assert.equal(await rows(), 0);
    });
  }

  it('a surrogate pair (an emoji, escaped) is stored and read back as the text sent', async () => {
    assert.equal((await sql('{"query":"INSERT INTO t VALUES (?)","params":["\\ud83d\\ude00"]}')).status, 200);
    assert.deepEqual((await sql('{"query":"SELECT x FROM t"}')).body.data, [['😀']]);
  });
});
