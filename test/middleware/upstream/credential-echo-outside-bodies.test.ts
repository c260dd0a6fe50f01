import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { EventStreamCodec } from '@smithy/core/event-streams';
import { chatCompletion, sendJson } from '../../support/scripted-provider.js';
import { TEST_KEY, startScriptedRoutes, type ScriptedRoutes } from '../../support/scripted-routes.js';

/** The credentials startScriptedRoutes gives each provider. */
const SECRETS = ['sk-fake-openai', 'sk-fake-anthropic', 'fake-gemini-key', 'ABSKfakebedrockapikey0123456789abcdef'];

/** The credential a call carried, as the provider received it. */
function credentialOf(req: IncomingMessage): string {
  return String(req.headers['x-api-key'] ?? req.headers['x-goog-api-key'] ?? req.headers.authorization).replace(/^Bearer /, '');
}

const codec = new EventStreamCodec(
  (bytes) => Buffer.from(bytes).toString('utf8'),
  (text) => Buffer.from(text, 'utf8'),
);

/** One AWS event-stream message with the given string headers. */
function awsMessage(headers: Record<string, string>, body = '{}'): Buffer {
  return Buffer.from(codec.encode({ headers: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, { type: 'string' as const, value }])), body: Buffer.from(body) }));
}

/** An Anthropic stream whose `ping` event is named by `name` (an SSE `event:` line, relayed as it came). */
function anthropicStream(res: ServerResponse, name: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const send = (event: string, data: object) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  send('message_start', { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], model: 'claude-sonnet-4-5', usage: { input_tokens: 3, output_tokens: 1 } } });
  send(name, { type: 'ping' });
  send('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
  send('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hello' } });
  send('content_block_stop', { type: 'content_block_stop', index: 0 });
  send('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 1 } });
  send('message_stop', { type: 'message_stop' });
  res.end();
}

/**
 * README "Retries upstream": every provider secret is redacted from whatever comes back before it is relayed. Bodies
 * and event data were; a provider's request-id header (relayed as `x-upstream-request-id`), an SSE event's name and
 * the headers of a Bedrock exception or error message (relayed as the error's code and message) were not.
 */
describe('provider credentials echoed outside an answer body (issue 15 item 3)', function () {
  this.timeout(30_000);
  let routes: ScriptedRoutes;
  before(async () => {
    routes = await startScriptedRoutes();
  });
  after(() => routes.close());

  const post = async (path: string, body: unknown) => {
    const response = await fetch(routes.gateway.url + path, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` }, body: JSON.stringify(body) });
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) chunks.push(Buffer.from(chunk));
    } catch {}
    const headers: string[] = [];
    response.headers.forEach((value, name) => headers.push(`${name}: ${value}`));
    return { status: response.status, headers: response.headers, all: `${headers.join('\n')}\n\n${Buffer.concat(chunks).toString('latin1')}` };
  };
  const assertNoSecret = (text: string) => {
    for (const secret of SECRETS) assert.ok(!text.includes(secret), `${secret} relayed:\n${text}`);
  };
  const chat = (model: string, stream = false) => ({ model, stream, messages: [{ role: 'user', content: 'hi' }] });

  it('a request id header echoing the key, on a JSON answer, a JSON error and a stream, reaches the client redacted', async () => {
    routes.openai.set((req, res) => sendJson(res, 200, chatCompletion('hi', { prompt_tokens: 1, completion_tokens: 1 }), { 'x-request-id': `req for ${req.headers.authorization}` }));
    let answer = await post('/v1/chat/completions', chat('gpt'));
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('x-upstream-request-id'), 'req for [redacted]');
    assertNoSecret(answer.all);

    routes.anthropic.set((req, res) => sendJson(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'no' } }, { 'request-id': credentialOf(req) }));
    answer = await post('/v1/messages', { ...chat('claude'), max_tokens: 8 });
    assert.equal(answer.status, 400);
    assertNoSecret(answer.all);

    routes.anthropic.set((req, res) => {
      res.setHeader('request-id', credentialOf(req));
      anthropicStream(res, 'ping');
    });
    answer = await post('/v1/messages', { ...chat('claude', true), max_tokens: 8 });
    assert.equal(answer.status, 200);
    assert.ok(answer.all.includes('message_stop'));
    assertNoSecret(answer.all);
  });

  it('an SSE event named by the key reaches a native messages client redacted', async () => {
    routes.anthropic.set((req, res) => anthropicStream(res, credentialOf(req)));
    const answer = await post('/v1/messages', { ...chat('claude', true), max_tokens: 8 });
    assert.equal(answer.status, 200);
    assert.ok(answer.all.includes('event: [redacted]'), answer.all);
    assertNoSecret(answer.all);
  });

  it("a Bedrock stream's exception type, error code and error message echoing the key reach the client redacted", async () => {
    const messages = [
      (key: string) => awsMessage({ ':message-type': 'exception', ':exception-type': key }, '{"message":"refused"}'),
      (key: string) => awsMessage({ ':message-type': 'error', ':error-code': `Bad${key}`, ':error-message': `key ${key} refused` }),
    ];
    for (const message of messages) {
      routes.bedrock.set((req, res) => {
        res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
        res.end(message(credentialOf(req)));
      });
      const answer = await post('/v1/chat/completions', chat('rock', true));
      assert.equal(answer.status, 500);
      assert.ok(answer.all.includes('[redacted]'), answer.all);
      assertNoSecret(answer.all);
    }
  });

  it("Bedrock's x-amzn-errortype echoing the key is relayed as a redacted code", async () => {
    routes.bedrock.set((req, res) => sendJson(res, 400, { message: 'refused' }, { 'x-amzn-errortype': `${credentialOf(req)}:http://internal.amazon.com/` }));
    const answer = await post('/v1/chat/completions', chat('rock'));
    assert.equal(answer.status, 400);
    assert.ok(answer.all.includes('"code":"[redacted]"'), answer.all);
    assertNoSecret(answer.all);
  });
});
