import assert from 'node:assert/strict';
import { chatToMessagesRequest } from '../../../packages/middleware/src/providers/anthropic/chat-to-messages-request.js';
import { messagesToChatRequest } from '../../../packages/middleware/src/translate/index.js';
import { ServiceError } from '../../../packages/middleware/src/errors/index.js';

describe('request translation between chat and messages', () => {
  it('moves system prompts to system, merges consecutive turns and turns tool messages into tool_result blocks', () => {
    const request = chatToMessagesRequest(
      {
        model: 'alias',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'developer', content: 'Answer in English.' },
          { role: 'user', content: 'Weather in Paris?' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }] },
          { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
          { role: 'user', content: 'Thanks' },
        ],
        stop: 'END',
        tools: [{ type: 'function', function: { name: 'weather', description: 'd', parameters: { type: 'object' } } }],
        tool_choice: 'required',
      },
      'claude-x',
      1000,
    );
    assert.equal(request.system, 'Be brief.\n\nAnswer in English.');
    assert.equal(request.max_tokens, 1000);
    assert.deepEqual(request.stop_sequences, ['END']);
    assert.deepEqual(request.tool_choice, { type: 'any' });
    assert.deepEqual(request.tools, [{ name: 'weather', description: 'd', input_schema: { type: 'object' } }]);
    assert.deepEqual(request.messages.map((m) => m.role), ['user', 'assistant', 'user']);
    assert.deepEqual(request.messages[1]!.content, [{ type: 'tool_use', id: 'call_1', name: 'weather', input: { city: 'Paris' } }]);
    assert.deepEqual(request.messages[2]!.content, [
      { type: 'tool_result', tool_use_id: 'call_1', content: 'sunny' },
      { type: 'text', text: 'Thanks' },
    ]);
  });

  it('turns image data URLs into base64 image blocks and back', () => {
    const png = 'iVBORw0KGgo=';
    const messages = chatToMessagesRequest({ model: 'a', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } }] }] }, 'm', 10);
    assert.deepEqual(messages.messages[0]!.content, [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } }]);
    const chat = messagesToChatRequest({ model: 'a', max_tokens: 5, messages: messages.messages }, 'm');
    assert.deepEqual(chat.messages[0]!.content, [{ type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } }]);
  });

  it('rejects a malformed image data URL with a 400 detail body', () => {
    assert.throws(
      () => chatToMessagesRequest({ model: 'a', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,@@@' } }] }] }, 'm', 10),
      (error: unknown) => error instanceof ServiceError && error.status === 400 && typeof error.options.detail === 'string',
    );
  });

  it('turns tool_use and tool_result blocks into tool calls and tool messages, asking for stream usage', () => {
    const chat = messagesToChatRequest(
      {
        model: 'a',
        max_tokens: 64,
        system: [{ type: 'text', text: 'sys' }],
        stream: true,
        stop_sequences: ['x'],
        tool_choice: { type: 'tool', name: 'weather' },
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: [{ type: 'text', text: 'calling' }, { type: 'tool_use', id: 't1', name: 'weather', input: { city: 'Oslo' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'cold' }] }] },
        ],
      },
      'gpt-x',
    );
    assert.deepEqual(chat.messages.map((m) => m.role), ['system', 'user', 'assistant', 'tool']);
    assert.deepEqual(chat.messages[2]!.tool_calls, [{ id: 't1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }]);
    assert.equal(chat.messages[3]!.content, 'cold');
    assert.deepEqual(chat.tool_choice, { type: 'function', function: { name: 'weather' } });
    assert.deepEqual(chat.stream_options, { include_usage: true });
    assert.deepEqual(chat.stop, ['x']);
  });
});
