import assert from 'node:assert/strict';
import { estimateInputTokens } from '../../../packages/middleware/src/tokenize/index.js';
import { readSse } from '../../support/gateway.js';
import { TEST_KEY, startStack } from '../gateway/gateway-fixture.js';

describe('a translated /v1/messages stream names the prompt count in message_start', () => {
  let stack: Awaited<ReturnType<typeof startStack>>;
  beforeEach(async () => {
    stack = await startStack();
  });
  afterEach(() => stack.close());

  it('sends the tokenizer’s estimate of the prompt in message_start, then upstream’s count in message_delta', async () => {
    const body = { model: 'gpt', max_tokens: 64, stream: true, system: 'You answer in one short sentence.', messages: [{ role: 'user', content: 'How many tokens does this prompt have, roughly speaking?' }] };
    const response = await fetch(`${stack.gateway.url}/v1/messages`, { method: 'POST', headers: { 'x-api-key': TEST_KEY, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal(response.status, 200);
    const { events, broke } = await readSse(response);
    assert.equal(broke, false);
    assert.equal(events[0]?.event, 'message_start');
    const start = JSON.parse(events[0]!.data) as { message: { usage: { input_tokens: number; output_tokens: number } } };
    assert.equal(start.message.usage.input_tokens, estimateInputTokens(body));
    assert.ok(start.message.usage.input_tokens > 10);
    const delta = JSON.parse(events.find((e) => e.event === 'message_delta')!.data) as { usage: { input_tokens: number } };
    assert.ok(delta.usage.input_tokens > 0, 'the closing message_delta carries what upstream reported');
  });
});
