import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { estimateInputTokens } from '../../../packages/middleware/src/tokenize/index.js';
import { sendJson } from '../../support/scripted-provider.js';
import { TEST_KEY, startScriptedRoutes, type ScriptedRoutes } from '../../support/scripted-routes.js';

/** Each client protocol, as a request to an alias. */
const protocols = [
  { name: 'chat completions', path: '/v1/chat/completions', body: (model: string, stream: boolean) => ({ model, stream, messages: [{ role: 'user', content: 'hi' }] }), anthropic: false },
  { name: 'responses', path: '/v1/responses', body: (model: string, stream: boolean) => ({ model, stream, input: 'hi' }), anthropic: false },
  { name: 'messages', path: '/v1/messages', body: (model: string, stream: boolean) => ({ model, stream, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }), anthropic: true },
] as const;

/**
 * A provider answering with a status that is neither a success nor an error (a redirect, 304, a code past 599)
 * has given no answer: contract §2.3 relays the provider's 4xx and 5xx only. Such a status used to reach the
 * client as it was (a 307 with an error body, an empty 304), which no SDK reads as a failure to retry. Redirects
 * are not followed, so the provider's key never travels to the origin a `Location` names.
 */
describe('a provider answering a status that is neither success nor error', function () {
  this.timeout(30_000);
  let routes: ScriptedRoutes;
  let elsewhere: Server;
  const reachedElsewhere: IncomingHttpHeaders[] = [];
  let location = '';

  before(async () => {
    elsewhere = createServer((req, res) => {
      reachedElsewhere.push(req.headers);
      res.end('{}');
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    location = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/v1/collect`;
    routes = await startScriptedRoutes();
  });
  after(async () => {
    await routes.close();
    await new Promise((resolve) => elsewhere.close(resolve));
  });

  function answerEverywhere(status: number) {
    for (const provider of [routes.openai, routes.anthropic, routes.gemini, routes.bedrock]) {
      provider.set((_req, res) => {
        if (status === 304) {
          res.writeHead(304);
          res.end();
        } else sendJson(res, status, { error: { message: 'moved' } }, { location });
      });
    }
  }

  const post = async (path: string, body: unknown) => {
    const response = await fetch(routes.gateway.url + path, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` }, body: JSON.stringify(body), redirect: 'manual' });
    return { status: response.status, headers: response.headers, text: await response.text() };
  };

  for (const status of [307, 302, 304, 600]) {
    for (const model of ['gpt', 'claude', 'gem', 'rock']) {
      it(`HTTP ${status} from the ${model} route answers 502 api_error on every protocol, streamed or not, with nothing billed, no slot kept and nothing sent to the Location`, async () => {
        answerEverywhere(status);
        for (const protocol of protocols) {
          for (const stream of [false, true]) {
            const answer = await post(protocol.path, protocol.body(model, stream));
            const what = `${protocol.name}${stream ? ' stream' : ''}: ${answer.status} ${answer.text}`;
            assert.equal(answer.status, 502, what);
            assert.equal(answer.headers.get('location'), null, what);
            assert.equal(answer.headers.get('x-should-retry'), 'true', what);
            const body = JSON.parse(answer.text);
            const error = protocol.anthropic ? (assert.equal(body.type, 'error'), body.error) : body.error;
            assert.equal(error.type, 'api_error', what);
            assert.match(error.message, new RegExp(`HTTP ${status}`), what);
          }
        }
        const usage = await routes.gateway.gate.admin.usage('acme');
        assert.deepEqual([usage.requests, usage.inFlight, usage.wallet], [0, 0, 100]);
        assert.equal(reachedElsewhere.length, 0);
      });
    }
  }

  it('a redirect is an unreachable provider to the OpenAI SDK (an APIError of status 502 it retries), not a 3xx', async () => {
    answerEverywhere(308);
    const client = new OpenAI({ baseURL: `${routes.gateway.url}/v1`, apiKey: TEST_KEY, maxRetries: 1 });
    const before = routes.openai.count;
    await assert.rejects(client.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }] }), (error: unknown) => error instanceof OpenAI.APIError && error.status === 502);
    assert.equal(routes.openai.count - before, 2, 'the SDK retried the 502 once');
    assert.equal(reachedElsewhere.length, 0);
  });

  it("count_tokens on an Anthropic route that redirects answers the tokenizer's count, as when Anthropic is unreachable", async () => {
    answerEverywhere(301);
    const body = { model: 'claude', messages: [{ role: 'user', content: 'hi' }] };
    const answer = await post('/v1/messages/count_tokens', body);
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(JSON.parse(answer.text), { input_tokens: estimateInputTokens({ messages: body.messages }) });
    assert.equal(reachedElsewhere.length, 0);
  });
});

describe('a redirecting route with a fallback', function () {
  this.timeout(30_000);
  it('fails over to the next route, which answers 200', async () => {
    const routes = await startScriptedRoutes({
      models: { 'gpt-then-claude': { routes: [{ provider: 'openai', model: 'gpt-4o' }, { provider: 'anthropic', model: 'claude-sonnet-4-5' }], price: { input: 1, output: 1 } } },
    });
    try {
      routes.openai.set((_req, res) => sendJson(res, 307, '', { location: 'http://127.0.0.1:9/elsewhere' }));
      routes.anthropic.set((_req, res) => sendJson(res, 200, { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'from the fallback' }], stop_reason: 'end_turn', usage: { input_tokens: 3, output_tokens: 3 } }));
      const response = await fetch(`${routes.gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` }, body: JSON.stringify({ model: 'gpt-then-claude', messages: [{ role: 'user', content: 'hi' }] }) });
      const body = (await response.json()) as { choices: { message: { content: string } }[] };
      assert.equal(response.status, 200);
      assert.equal(body.choices[0]!.message.content, 'from the fallback');
      assert.equal(response.headers.get('x-tollgate-route'), 'anthropic/claude-sonnet-4-5');
    } finally {
      await routes.close();
    }
  });
});
