import assert from 'node:assert/strict';
import { ToolCallCollector, toChatMessages, toChatTools } from '../../extension/src/chat/lm-messages.js';

describe('extension: Tollgate as a VS Code language-model provider — messages and tool calls', () => {
  it("turns VS Code's messages with tool calls and results into chat-completions messages", () => {
    const messages = toChatMessages([
      { role: 'user', parts: [{ kind: 'text', value: 'How many rows?' }] },
      { role: 'assistant', parts: [{ kind: 'text', value: 'Let me count.' }, { kind: 'toolCall', callId: 'call_1', name: 'run_sql', input: { sql: 'SELECT count(*) FROM t' } }] },
      { role: 'user', parts: [{ kind: 'toolResult', callId: 'call_1', text: '42' }] },
    ]);
    assert.deepEqual(messages, [
      { role: 'user', content: 'How many rows?' },
      { role: 'assistant', content: 'Let me count.', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'run_sql', arguments: '{"sql":"SELECT count(*) FROM t"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: '42' },
    ]);
  });

  it("declares VS Code's tools as functions, and none when there are none", () => {
    assert.deepEqual(toChatTools([{ name: 'run_sql', description: 'Runs SQL', inputSchema: { type: 'object', properties: { sql: { type: 'string' } } } }, { name: 'now', description: 'The time' }]), {
      tools: [
        { type: 'function', function: { name: 'run_sql', description: 'Runs SQL', parameters: { type: 'object', properties: { sql: { type: 'string' } } } } },
        { type: 'function', function: { name: 'now', description: 'The time', parameters: { type: 'object', properties: {} } } },
      ],
    });
    assert.deepEqual(toChatTools([]), {});
  });

  it('puts streamed tool-call deltas back together, each call whole with its arguments parsed', () => {
    const collector = new ToolCallCollector();
    collector.add([{ index: 0, id: 'call_1', type: 'function', function: { name: 'run_sql', arguments: '{"sq' } }]);
    collector.add([{ index: 1, id: 'call_2', function: { name: 'now', arguments: '' } }]);
    collector.add([{ index: 0, function: { arguments: 'l":"SELECT 1"}' } }]);
    collector.add(undefined);
    assert.deepEqual(collector.calls(), [
      { callId: 'call_1', name: 'run_sql', input: { sql: 'SELECT 1' } },
      { callId: 'call_2', name: 'now', input: {} },
    ]);
  });

  it('names the tool when a model sends arguments that are not JSON', () => {
    const collector = new ToolCallCollector();
    collector.add([{ index: 0, id: 'c', function: { name: 'run_sql', arguments: '{"sql": SELECT' } }]);
    assert.throws(() => collector.calls(), /run_sql with arguments that are not JSON/);
  });
});
