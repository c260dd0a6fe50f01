import assert from 'node:assert/strict';
import type { ConfigInput } from '@tollgate/middleware';
import { readSse, startGateway, TEST_KEY, type RunningGateway } from '../../support/gateway.js';
import { startScripted } from '../../support/scripted-provider.js';
import { sendSse } from '../../support/scripted-routes.js';

const chunk = (content: string, finish: string | null = null) => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [{ index: 0, delta: { content }, finish_reason: finish }] });

/**
 * OpenAI (and vLLM, and other OpenAI-compatible servers) report a stream that failed on their side as an event
 * `data: {"error": {...}}` (the openai SDKs raise APIError on it). Arriving before any output, it is a transient
 * failure before the first byte: README "Routing strategies" and "Retries upstream" fail it over to the next route,
 * as an Anthropic `error` event is. It was relayed as if it were a chat chunk, which committed the client's 200, so
 * the request was neither retried nor failed over: the client got a broken stream (and was billed its prompt).
 */
describe('an OpenAI stream whose first event is an error', function () {
  this.timeout(15_000);
  let gateway: RunningGateway;
  let failing: Awaited<ReturnType<typeof startScripted>>;
  let healthy: Awaited<ReturnType<typeof startScripted>>;

  before(async () => {
    failing = await startScripted((_req, res) => sendSse(res, [{ error: { message: 'The server had an error while processing your request. Sorry about that!', type: 'server_error', param: null, code: null } }]));
    healthy = await startScripted((_req, res) => sendSse(res, [chunk('from the '), chunk('fallback', 'stop'), { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [], usage: { prompt_tokens: 5, completion_tokens: 2 } }], { done: true }));
    const config: ConfigInput = {
      defaultCatalog: false,
      keys: [{ key: TEST_KEY, org: 'acme' }],
      organizations: { acme: { wallet: 10 } },
      providers: {
        failing: { kind: 'openai', baseUrl: failing.baseUrl, apiKey: 'sk-a', maxRetries: 0 },
        healthy: { kind: 'openai', baseUrl: healthy.baseUrl, apiKey: 'sk-b', maxRetries: 0 },
      },
      models: { m: { routes: [{ provider: 'failing', model: 'gpt-4o' }, { provider: 'healthy', model: 'gpt-4o' }], price: { input: 1, output: 1 } } },
    };
    gateway = await startGateway(config);
  });
  after(async () => {
    await gateway.close();
    await failing.close();
    await healthy.close();
  });

  it('fails over to the next route, whose stream the client gets whole', async () => {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` }, body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] }) });
    assert.equal(response.status, 200);
    const route = response.headers.get('x-tollgate-route');
    const { events, broke } = await readSse(response);
    assert.equal(broke, false, `the stream broke (route ${route}, ${events.length} events)`);
    assert.equal(route, 'healthy/gpt-4o');
    const text = events.filter((e) => e.data !== '[DONE]').map((e) => JSON.parse(e.data).choices?.[0]?.delta?.content ?? '').join('');
    assert.equal(text, 'from the fallback');
    assert.equal(events.at(-1)?.data, '[DONE]');
    assert.ok(!events.some((e) => e.data.includes('server_error')), 'the provider error event was relayed');
    assert.equal(healthy.count, 1);
  });
});
