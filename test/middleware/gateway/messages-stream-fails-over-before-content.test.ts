import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { startGateway, TEST_KEY, type RunningGateway } from '../../support/gateway.js';
import { sendEvents, startScripted } from '../../support/scripted-provider.js';

const messageStart = { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 5, output_tokens: 1 } } };
const overloaded = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } };
const answered = (text: string, model: string) => [
  { ...messageStart, message: { ...messageStart.message, model } },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'ping' },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } },
  { type: 'content_block_stop', index: 0 },
  { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 2 } },
  { type: 'message_stop' },
];

/**
 * Anthropic reports an overload that comes after `message_start` as an error event (its SSE `error`), most often
 * before any content. The native relay wrote `message_start` at once, so the stream had begun and could only be
 * cut: the client got a broken stream where the next route would have answered. Events that carry no output
 * (`message_start`, `content_block_start`, `ping`) are held until the first that does.
 */
describe('a native Messages stream that fails before any content fails over', function () {
  this.timeout(20_000);
  let gateway: RunningGateway;
  let primary: Awaited<ReturnType<typeof startScripted>>;
  let secondary: Awaited<ReturnType<typeof startScripted>>;

  beforeEach(async () => {
    primary = await startScripted((_req, res) => sendEvents(res, [messageStart, { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, { type: 'ping' }, overloaded]), '');
    secondary = await startScripted((_req, res, body) => sendEvents(res, answered('from the second route', body.model)), '');
    gateway = await startGateway({
      defaultCatalog: false,
      keys: [{ key: TEST_KEY, org: 'acme' }],
      organizations: { acme: { wallet: 100 } },
      providers: {
        first: { kind: 'anthropic', baseUrl: primary.baseUrl, apiKey: 'sk-a', retryBaseMs: 1, maxRetries: 0 },
        second: { kind: 'anthropic', baseUrl: secondary.baseUrl, apiKey: 'sk-b', retryBaseMs: 1, maxRetries: 0 },
      },
      models: { claude: { routes: [{ provider: 'first', model: 'claude-sonnet-4-5' }, { provider: 'second', model: 'claude-haiku-4-5' }], price: { input: 1, output: 1 } } },
    }, { logger: { info() {}, error() {} } });
  });
  afterEach(async () => {
    await gateway.close();
    await primary.close();
    await secondary.close();
  });

  it('an overloaded_error after message_start: the SDK reads the second route\'s whole answer, in order, billed once', async () => {
    const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: TEST_KEY, maxRetries: 0 });
    const stream = anthropic.messages.stream({ model: 'claude', max_tokens: 32, messages: [{ role: 'user', content: 'hi' }] });
    const types: string[] = [];
    stream.on('streamEvent', (event) => types.push(event.type));
    const message = await stream.finalMessage();
    assert.deepEqual(message.content, [{ type: 'text', text: 'from the second route' }]);
    assert.equal(message.model, 'claude');
    // The SDK passes on no ping.
    assert.deepEqual(types, ['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
    assert.equal(primary.count, 1);
    assert.equal(secondary.count, 1);
    const usage = await gateway.gate.admin.usage('acme');
    assert.deepEqual([usage.requests, usage.outputTokens], [1, 2]);
  });

  it('a stream whose only route fails that way answers the Anthropic error envelope with a status, not a cut stream', async () => {
    await gateway.close();
    gateway = await startGateway({
      defaultCatalog: false,
      keys: [{ key: TEST_KEY, org: 'acme' }],
      organizations: { acme: { wallet: 100 } },
      providers: { first: { kind: 'anthropic', baseUrl: primary.baseUrl, apiKey: 'sk-a', retryBaseMs: 1, maxRetries: 1 } },
      models: { claude: { routes: [{ provider: 'first', model: 'claude-sonnet-4-5' }], price: { input: 1, output: 1 } } },
    }, { logger: { info() {}, error() {} } });
    const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: TEST_KEY, maxRetries: 0 });
    const error = await anthropic.messages.create({ model: 'claude', max_tokens: 32, stream: true, messages: [{ role: 'user', content: 'hi' }] }).then(async (s) => { for await (const _ of s) { /* drain */ } return undefined; }, (e: unknown) => e);
    assert.ok(error instanceof Anthropic.APIError, `expected an APIError, got ${String(error)}`);
    assert.ok((error.status ?? 0) >= 500, `status ${error.status}`);
    assert.equal(primary.count, 2, 'retried once, as a failure before output is');
    assert.equal((await gateway.gate.admin.usage('acme')).requests, 0);
  });
});
