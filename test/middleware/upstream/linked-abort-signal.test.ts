import assert from 'node:assert/strict';
import { addAbortListener } from 'node:events';
import { Dispatcher } from 'undici';
import OpenAI from 'openai';
import { TEST_KEY, startStack } from '../gateway/gateway-fixture.js';

type RequestMethod = (this: Dispatcher, options: Dispatcher.RequestOptions, ...rest: unknown[]) => unknown;

/**
 * Makes undici 7's `request()` read its `signal` as the next major does: through Node's
 * `addAbortListener`, which throws on anything but a real AbortSignal.
 */
function strictSignals(): () => void {
  const prototype = Dispatcher.prototype as unknown as { request: RequestMethod };
  const original = prototype.request;
  prototype.request = function (options, ...rest) {
    if (options.signal) addAbortListener(options.signal as AbortSignal, () => undefined)[Symbol.dispose]();
    return original.call(this, options, ...rest);
  };
  return () => {
    prototype.request = original;
  };
}

describe('cancelling upstream calls through a real AbortSignal', () => {
  let stack: Awaited<ReturnType<typeof startStack>>;
  let restore: () => void;
  beforeEach(async () => {
    stack = await startStack();
    restore = strictSignals();
  });
  afterEach(async () => {
    restore();
    await stack.close();
  });

  it('streams when undici accepts nothing but an AbortSignal', async () => {
    const openai = new OpenAI({ baseURL: `${stack.gateway.url}/v1`, apiKey: TEST_KEY, maxRetries: 0 });
    let text = '';
    for await (const chunk of await openai.chat.completions.create({ model: 'gpt', stream: true, messages: [{ role: 'user', content: 'hello there' }] })) text += chunk.choices[0]?.delta.content ?? '';
    assert.equal(text, 'Echo: hello there');
  });

  it('still aborts the upstream stream when the client leaves', async () => {
    stack.openai.delay(400);
    const controller = new AbortController();
    const pending = fetch(`${stack.gateway.url}/v1/chat/completions`, { method: 'POST', signal: controller.signal, headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` }, body: JSON.stringify({ model: 'gpt', stream: true, messages: [{ role: 'user', content: 'hi' }] }) }).catch(() => undefined);
    while (stack.openai.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    await pending;
    const deadline = Date.now() + 2_000;
    while (!stack.openai.requests[0]!.aborted && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(stack.openai.requests[0]!.aborted, true);
    assert.equal(stack.openai.requests.length, 1, 'not retried');
  });
});
