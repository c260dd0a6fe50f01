import assert from 'node:assert/strict';
import { codecFor, IncompleteStream, type RouteTarget } from '../../../packages/middleware/src/providers/index.js';
import { recordedChunks, recordedJson } from '../../support/recorded.js';

const target = (kind: 'openai' | 'anthropic'): RouteTarget => ({
  provider: { kind, headers: {}, timeoutMs: 1000, maxRetries: 0, retryBaseMs: 0 },
  model: 'upstream-model',
  alias: 'my-alias',
  defaultMaxTokens: 1024,
});

function replay(kind: 'openai' | 'anthropic', protocol: 'chat' | 'messages', fixture: string, clientBody: Record<string, unknown> = {}) {
  const translator = codecFor(protocol, kind).stream(target(kind), clientBody);
  const events = recordedChunks(fixture).flatMap((data) => translator.push({ data, event: (JSON.parse(data) as { type?: string }).type }));
  return { translator, events };
}

describe('recorded provider streams through the translators', () => {
  it('turns the recorded Anthropic "json" tool stream of a structured-output request into one JSON text answer ending in stop', () => {
    const { translator, events } = replay('anthropic', 'chat', 'anthropic-json-tool.1', { model: 'my-alias', messages: [], response_format: { type: 'json_object' } });
    const chunks = [...events, ...translator.end()].slice(0, -1).map((e) => e.data as { choices: { delta: { content?: string; tool_calls?: unknown }; finish_reason: string | null }[] });
    assert.equal(chunks.some((c) => c.choices[0]?.delta.tool_calls !== undefined), false);
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    assert.deepEqual(JSON.parse(text), { elements: [{ location: 'San Francisco', temperature: 58, condition: 'sunny' }] });
    assert.deepEqual(chunks.map((c) => c.choices[0]?.finish_reason).filter(Boolean), ['stop']);
  });

  it('turns the recorded Anthropic "json" tool answer of a structured-output request into a JSON message', () => {
    const recorded = recordedJson<{ content: { input: unknown }[] }>('anthropic-json-tool.1');
    const { body } = codecFor('chat', 'anthropic').response(recorded, target('anthropic'), { model: 'my-alias', messages: [], response_format: { type: 'json_object' } });
    const choice = (body as { choices: { message: { content: string; tool_calls?: unknown }; finish_reason: string }[] }).choices[0]!;
    assert.deepEqual(JSON.parse(choice.message.content), recorded.content[0]!.input);
    assert.equal(choice.message.tool_calls, undefined);
    assert.equal(choice.finish_reason, 'stop');
  });

  it('turns a recorded Anthropic text stream into chat chunks ending with one finish_reason and [DONE]', () => {
    const { translator, events } = replay('anthropic', 'chat', 'anthropic-text');
    const all = [...events, ...translator.end()];
    const chunks = all.slice(0, -1).map((e) => e.data as { model: string; choices: { delta: { content?: string }; finish_reason: string | null }[] });
    assert.equal(all.at(-1)?.data, '[DONE]');
    assert.ok(chunks.every((c) => c.model === 'my-alias'));
    assert.deepEqual(chunks.map((c) => c.choices[0]?.finish_reason).filter(Boolean), ['stop']);
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    const recordedText = recordedJson<{ content: { text: string }[] }>('anthropic-text').content[0]!.text;
    assert.ok(text.length > 0 && recordedText.length > 0);
    assert.equal(translator.usage().reported, true);
  });

  it('translates a recorded Anthropic tool_use stream into chat tool_call deltas whose arguments parse', () => {
    const { translator, events } = replay('anthropic', 'chat', 'anthropic-json-tool.1');
    translator.end();
    const calls = events.flatMap((e) => (e.data as { choices: { delta: { tool_calls?: { id?: string; function?: { name?: string; arguments?: string } }[] } }[] }).choices[0]?.delta.tool_calls ?? []);
    const args = calls.map((c) => c.function?.arguments ?? '').join('');
    assert.ok(calls[0]?.id && calls[0].function?.name);
    assert.doesNotThrow(() => JSON.parse(args));
    const finish = events.map((e) => (e.data as { choices: { finish_reason: string | null }[] }).choices[0]?.finish_reason).filter(Boolean);
    assert.deepEqual(finish, ['tool_calls']);
  });

  it('takes the input tokens message_delta revises, not the ones message_start announced', () => {
    const { translator } = replay('anthropic', 'messages', 'anthropic-message-delta-input-tokens');
    translator.end();
    const first = JSON.parse(recordedChunks('anthropic-message-delta-input-tokens')[0]!) as { message: { usage: { input_tokens: number } } };
    assert.notEqual(translator.usage().inputTokens, first.message.usage.input_tokens);
  });

  it('maps a recorded refusal to finish_reason content_filter', () => {
    const { events } = replay('anthropic', 'chat', 'anthropic-refusal');
    const finish = events.map((e) => (e.data as { choices: { finish_reason: string | null }[] }).choices[0]?.finish_reason).filter(Boolean);
    assert.deepEqual(finish, ['content_filter']);
  });

  it('relays a recorded Anthropic stream to a messages client with the alias and the same event sequence', () => {
    const { translator, events } = replay('anthropic', 'messages', 'anthropic-text');
    assert.deepEqual(translator.end(), []);
    const recordedTypes = recordedChunks('anthropic-text').map((d) => (JSON.parse(d) as { type: string }).type);
    assert.deepEqual(events.map((e) => e.event), recordedTypes);
    assert.equal((events[0]!.data as { message: { model: string } }).message.model, 'my-alias');
  });

  it('turns a recorded OpenAI chat stream into Anthropic events ending message_delta then message_stop with usage', () => {
    const { translator, events } = replay('openai', 'messages', 'openai-chat-text');
    const all = [...events, ...translator.end()];
    const types = all.map((e) => e.event);
    assert.equal(types[0], 'message_start');
    assert.deepEqual(types.slice(-3), ['content_block_stop', 'message_delta', 'message_stop']);
    const delta = all.at(-2)!.data as { delta: { stop_reason: string }; usage: { output_tokens: number; input_tokens: number } };
    assert.equal(delta.delta.stop_reason, 'end_turn');
    assert.deepEqual(delta.usage, { input_tokens: 16, output_tokens: 300 });
  });

  it('holds back the usage chunk from a chat client that did not ask for it, but still meters it', () => {
    const { translator, events } = replay('openai', 'chat', 'openai-chat-text');
    assert.ok(events.every((e) => (e.data as { usage?: unknown }).usage === undefined));
    assert.deepEqual(translator.usage(), { inputTokens: 16, outputTokens: 300, reported: true, cachedInputTokens: 0 });
  });

  it('passes the usage chunk to a chat client that asked with stream_options.include_usage', () => {
    const { events } = replay('openai', 'chat', 'openai-chat-text', { stream_options: { include_usage: true } });
    assert.ok(events.some((e) => (e.data as { usage?: { completion_tokens: number } }).usage?.completion_tokens === 300));
  });

  it('refuses to end a stream that was cut before its finish_reason or message_stop', () => {
    for (const [kind, protocol, fixture] of [['openai', 'chat', 'openai-chat-text'], ['anthropic', 'messages', 'anthropic-text'], ['anthropic', 'chat', 'anthropic-text'], ['openai', 'messages', 'openai-chat-text']] as const) {
      const translator = codecFor(protocol, kind).stream(target(kind), {});
      const chunks = recordedChunks(fixture);
      for (const data of chunks.slice(0, Math.floor(chunks.length / 2))) translator.push({ data });
      assert.throws(() => translator.end(), IncompleteStream, `${kind}/${protocol}`);
    }
  });

  it('converts the recorded Anthropic JSON response to a chat completion naming the alias', () => {
    const { body, usage } = codecFor('chat', 'anthropic').response(recordedJson('anthropic-text'), target('anthropic'));
    const completion = body as { model: string; object: string; choices: { message: { content: string }; finish_reason: string }[] };
    assert.equal(completion.model, 'my-alias');
    assert.equal(completion.object, 'chat.completion');
    assert.equal(completion.choices[0]?.finish_reason, 'stop');
    assert.ok(completion.choices[0]!.message.content.length > 0);
    assert.equal(usage.reported, true);
  });

  it('converts the recorded OpenAI completion to an Anthropic message naming the alias', () => {
    const { body } = codecFor('messages', 'openai').response(recordedJson('openai-chat-text'), target('openai'));
    const message = body as { type: string; model: string; content: { type: string }[]; stop_reason: string };
    assert.equal(message.type, 'message');
    assert.equal(message.model, 'my-alias');
    assert.equal(message.content[0]?.type, 'text');
  });
});
