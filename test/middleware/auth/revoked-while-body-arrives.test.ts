import assert from 'node:assert/strict';
import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { postJson, startGateway, type RunningGateway } from '../../support/gateway.js';
import { chatCompletion, sendJson, startScripted } from '../../support/scripted-provider.js';

const ADMIN_SIDE = 'tg-acme-operator-0001-0123456789abcdef';

/**
 * Sends the headers and the first half of the body, waits until `between` (the key is revoked there) has run,
 * then the rest: a request whose body was still arriving when its key was revoked.
 */
function postWithSlowBody(url: string, key: string, body: unknown, between: () => Promise<void>): Promise<{ status: number; text: string }> {
  const payload = Buffer.from(JSON.stringify(body));
  const half = Math.floor(payload.length / 2);
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': payload.length, authorization: `Bearer ${key}` } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
    req.write(payload.subarray(0, half));
    // The headers are authenticated as soon as they arrive; the revocation comes while the body is in transit.
    sleep(300)
      .then(between)
      .then(() => req.end(payload.subarray(half)), reject);
  });
}

/**
 * A key revoked (a leaked key, `tollgate admin keys revoke`) is refused by "the very next request" (README): also by a
 * request that was still uploading its body at that moment. With the memory store the key was looked at only when
 * the headers came, so the request ran and was billed after the revocation (the Redis store's admission checks it).
 */
describe('a key revoked while its request body is still arriving', () => {
  let gateway: RunningGateway;
  let provider: Awaited<ReturnType<typeof startScripted>>;
  let leaked: string;

  beforeEach(async () => {
    provider = await startScripted((_req, res) => sendJson(res, 200, chatCompletion('four five six', { prompt_tokens: 1000, completion_tokens: 1000, total_tokens: 2000 })));
    gateway = await startGateway({
      keys: [{ key: ADMIN_SIDE, org: 'acme', scopes: ['sql'] }],
      organizations: { acme: { wallet: 10 } },
      defaultCatalog: false,
      providers: { fake: { kind: 'openai', baseUrl: provider.baseUrl, apiKey: 'sk-fake-provider-key' } },
      models: { gpt: { routes: [{ provider: 'fake', model: 'gpt-4o' }], price: { input: 1, output: 1 } } },
      sql: { databases: { main: {} }, default: 'main' },
    });
    leaked = (await gateway.gate.admin.createKey('acme', ['models', 'sql'])).key;
    assert.equal((await postJson(`${gateway.url}/api/sql/query`, { query: 'CREATE TABLE t(x)' }, { authorization: `Bearer ${ADMIN_SIDE}` })).status, 200);
  });
  afterEach(async () => {
    await gateway.close();
    await provider.close();
  });

  it('answers a model request 401 and neither calls the provider nor charges the wallet', async () => {
    const chat = { model: 'gpt', max_tokens: 10, messages: [{ role: 'user', content: 'one two three '.repeat(50) }] };
    const answer = await postWithSlowBody(`${gateway.url}/v1/chat/completions`, leaked, chat, async () => {
      assert.equal(await gateway.gate.admin.revokeKey(leaked), true);
    });
    assert.equal(answer.status, 401, `answered ${answer.status} ${answer.text.slice(0, 200)}`);
    assert.equal(provider.count, 0, 'the provider was called with a revoked key');
    assert.equal((await gateway.gate.admin.usage('acme')).wallet, 10);
  });

  it('answers an SQL write 401 and changes nothing', async () => {
    const insert = { query: `INSERT INTO t VALUES ('${'x'.repeat(500)}')` };
    const answer = await postWithSlowBody(`${gateway.url}/api/sql/query`, leaked, insert, async () => {
      assert.equal(await gateway.gate.admin.revokeKey(leaked), true);
    });
    assert.equal(answer.status, 401, `answered ${answer.status} ${answer.text.slice(0, 200)}`);
    const rows = await postJson(`${gateway.url}/api/sql/query`, { query: 'SELECT count(*) FROM t' }, { authorization: `Bearer ${ADMIN_SIDE}` });
    assert.deepEqual(rows.body.data, [[0]]);
  });
});
