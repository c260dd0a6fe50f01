import assert from 'node:assert/strict';
import { request } from 'node:http';
import { ConfigError, type ConfigInput } from '@tollgate/middleware';
import { postJson, startGateway, TEST_KEY, type RunningGateway } from '../../support/gateway.js';
import { chatCompletion, sendJson, startScripted } from '../../support/scripted-provider.js';

/**
 * Node fires a timer whose delay does not fit in 32 bits (past 2^31 - 1 ms, about 24.8 days) after 1 ms.
 * An operator who writes a long duration ("a month", "practically never") must get either that duration or
 * a start-up error naming the field: never a gateway whose every request times out at once.
 */
const TOO_LONG_FOR_A_TIMER = 2_592_000_000; // 30 days

async function startOrRefuse(config: ConfigInput, field: string): Promise<RunningGateway | undefined> {
  try {
    return await startGateway(config);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `not a ConfigError: ${String(error)}`);
    assert.match(error.message, new RegExp(field.replace(/\./g, '\\.')), 'the start-up error names the field');
    return undefined;
  }
}

describe('millisecond settings longer than a Node timer', () => {
  const usage = { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 };

  it('relay.attemptDeadlineMs of 30 days serves requests (or is refused at start-up), never 502 upstream_deadline_exceeded at once', async () => {
    const upstream = await startScripted((_req, res) => void setTimeout(() => sendJson(res, 200, chatCompletion('hi', usage)), 20));
    const gateway = await startOrRefuse(
      {
        keys: [{ key: TEST_KEY, org: 'acme' }],
        organizations: { acme: { wallet: 10 } },
        providers: { p: { kind: 'openai', baseUrl: upstream.baseUrl, apiKey: 'sk-test' } },
        models: { m: { routes: [{ provider: 'p', model: 'gpt-4o' }], price: { input: 1, output: 1 } } },
        defaultCatalog: false,
        relay: { attemptDeadlineMs: TOO_LONG_FOR_A_TIMER },
      },
      'relay.attemptDeadlineMs',
    );
    try {
      if (!gateway) return;
      const answer = await postJson(`${gateway.url}/v1/chat/completions`, { model: 'm', messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${TEST_KEY}` });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.choices[0].message.content, 'hi');
    } finally {
      await gateway?.close();
      await upstream.close();
    }
  });

  it('bodyTimeoutMs of 30 days takes a body sent in two parts (or is refused at start-up), never 408 at once', async () => {
    const gateway = await startOrRefuse({ keys: [{ key: TEST_KEY, org: 'acme' }], organizations: { acme: {} }, sql: { databases: { main: { access: { acme: 'write' } } } }, bodyTimeoutMs: TOO_LONG_FOR_A_TIMER }, 'bodyTimeoutMs');
    try {
      if (!gateway) return;
      const body = JSON.stringify({ query: 'SELECT 1 AS one' });
      const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = request(`${gateway.url}/api/sql/query`, { method: 'POST', headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, text }));
        });
        req.on('error', reject);
        req.write(body.slice(0, 10));
        setTimeout(() => req.end(body.slice(10)), 100);
      });
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(JSON.parse(answer.text).data, [[1]]);
    } finally {
      await gateway?.close();
    }
  });
});
