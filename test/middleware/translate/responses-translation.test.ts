import assert from 'node:assert/strict';
import type { ProviderConfig } from '../../../packages/middleware/src/config/index.js';
import { codecFor, IncompleteStream, type RouteTarget } from '../../../packages/middleware/src/providers/index.js';
import { responsesToChatRequest } from '../../../packages/middleware/src/translate/index.js';
import { recordedChunks, recordedJson } from '../../support/recorded.js';

const providerOf = (kind: ProviderConfig['kind'], baseUrl?: string): ProviderConfig => ({ kind, headers: {}, timeoutMs: 1000, maxRetries: 0, retryBaseMs: 0, ...(baseUrl ? { baseUrl } : {}) });
const targetOf = (provider: ProviderConfig): RouteTarget => ({ provider, model: 'upstream-model', alias: 'my-alias', defaultMaxTokens: 1024 });

type Event = { type: string; sequence_number?: number; response?: { model: string; status: string; usage: { input_tokens: number; output_tokens: number } | null; output: unknown[] }; delta?: string; item?: { type: string; name?: string; arguments?: string } };

/**
 * Two lines of the recorded openai-responses-tool-calls stream (response.created, response.completed)
 * lack their final `}` in the shared fixture; they are repaired here, not in the gateway.
 */
function chunks(fixture: string): string[] {
  return recordedChunks(fixture).map((line) => {
    try {
      JSON.parse(line);
      return line;
    } catch {
      return `${line}}`;
    }
  });
}

function replay(provider: ProviderConfig, fixture: string, take = Infinity) {
  const translator = codecFor('responses', provider).stream(targetOf(provider), { model: 'my-alias', input: 'hi', stream: true });
  const events = chunks(fixture).slice(0, take).flatMap((data) => translator.push({ data, event: (JSON.parse(data) as { type?: string }).type }));
  return { translator, events };
}

describe('Responses ⇄ chat translation and the native relay', () => {
  it('translates input items, instructions, tools, tool_choice and max_output_tokens into a chat request', () => {
    const chat = responsesToChatRequest({
      model: 'a',
      instructions: 'Be brief.',
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'weather?' }, { type: 'input_image', image_url: 'https://x/y.png' }] },
        { type: 'function_call', call_id: 'c1', name: 'weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call', call_id: 'c2', name: 'weather', arguments: '{"city":"Rome"}' },
        { type: 'function_call_output', call_id: 'c1', output: 'sunny' },
        { type: 'function_call_output', call_id: 'c2', output: 'rain' },
      ],
      tools: [{ type: 'function', name: 'weather', parameters: { type: 'object', properties: {} } }],
      tool_choice: { type: 'function', name: 'weather' },
      max_output_tokens: 200,
      temperature: 0.5,
      stream: true,
    });
    assert.deepEqual(chat.messages.map((m) => m.role), ['system', 'user', 'assistant', 'tool', 'tool']);
    assert.equal(chat.messages[2]!.tool_calls!.length, 2, 'parallel calls stay in one assistant message');
    assert.deepEqual(chat.messages[1]!.content, [{ type: 'text', text: 'weather?' }, { type: 'image_url', image_url: { url: 'https://x/y.png' } }]);
    assert.deepEqual(chat.tool_choice, { type: 'function', function: { name: 'weather' } });
    assert.equal(chat.max_tokens, 200);
    assert.equal(chat.temperature, 0.5);
    assert.deepEqual(chat.stream_options, { include_usage: true });
  });

  it('relays OpenAI platform routes natively to /responses and renames the model in every response event', () => {
    const openai = providerOf('openai');
    assert.equal(codecFor('responses', openai).upstreamPath(targetOf(openai), true), '/responses');
    const { translator, events } = replay(openai, 'openai-responses-tool-calls');
    assert.deepEqual(translator.end(), []);
    const recordedTypes = chunks('openai-responses-tool-calls').map((d) => (JSON.parse(d) as { type: string }).type);
    assert.deepEqual(events.map((e) => e.event), recordedTypes);
    assert.ok(events.every((e) => !(e.data as Event).response || (e.data as Event).response!.model === 'my-alias'));
    assert.equal(translator.usage().reported, true);
    const json = codecFor('responses', openai).response(recordedJson('openai-responses-tool-calls'), targetOf(openai), {});
    assert.equal((json.body as { model: string }).model, 'my-alias');
  });

  it('ends a native responses stream abnormally when response.completed never came', () => {
    const { translator } = replay(providerOf('openai'), 'openai-responses-tool-calls', 4);
    assert.throws(() => translator.end(), IncompleteStream);
  });

  it('translates OpenAI-compatible servers through chat completions', () => {
    const ollama = providerOf('openai', 'http://127.0.0.1:11434/v1');
    assert.equal(codecFor('responses', ollama).upstreamPath(targetOf(ollama), false), '/chat/completions');
  });

  it('turns a recorded Anthropic stream into the Responses event sequence with usage on response.completed', () => {
    const anthropic = providerOf('anthropic');
    const { translator, events } = replay(anthropic, 'anthropic-text');
    const all = [...events, ...translator.end()].map((e) => e.data as Event);
    const types = all.map((e) => e.type);
    assert.deepEqual(types.slice(0, 4), ['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added']);
    assert.deepEqual(types.slice(-4), ['response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed']);
    assert.deepEqual(all.map((e) => e.sequence_number), all.map((_, i) => i));
    const completed = all.at(-1)!.response!;
    assert.equal(completed.model, 'my-alias');
    assert.equal(completed.status, 'completed');
    assert.ok(completed.usage!.input_tokens > 0 && completed.usage!.output_tokens > 0);
    const text = all.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta).join('');
    assert.ok(text.length > 0);
  });

  it('turns a recorded Gemini function call into function_call items with their arguments', () => {
    const gemini = providerOf('gemini');
    const { translator, events } = replay(gemini, 'google-stream-tool-call-arguments');
    const all = [...events, ...translator.end()].map((e) => e.data as Event);
    const done = all.filter((e) => e.type === 'response.output_item.done').map((e) => e.item!);
    assert.deepEqual(done.map((item) => [item.type, item.name, JSON.parse(item.arguments!)]), [
      ['function_call', 'getWeather', { location: 'Boston' }],
      ['function_call', 'getWeather', { location: 'San Francisco' }],
    ]);
    assert.ok(all.some((e) => e.type === 'response.function_call_arguments.delta'));
    assert.equal(all.filter((e) => e.type === 'response.function_call_arguments.done').length, 2);
    assert.equal(all.at(-1)!.type, 'response.completed');
  });

  it('never sends response.completed for a translated stream that broke', () => {
    const { translator, events } = replay(providerOf('anthropic'), 'anthropic-text', 4);
    assert.ok(!events.some((e) => (e.data as Event).type === 'response.completed'));
    assert.throws(() => translator.end(), IncompleteStream);
  });

  it('converts a recorded Gemini tool call answer into a response object with a function_call item', () => {
    const gemini = providerOf('gemini');
    const { body, usage } = codecFor('responses', gemini).response(recordedJson('google-tool-call'), targetOf(gemini), { model: 'my-alias', input: 'x' });
    const response = body as { object: string; model: string; status: string; output: { type: string; name: string }[]; usage: { input_tokens: number; output_tokens: number } };
    assert.equal(response.object, 'response');
    assert.equal(response.model, 'my-alias');
    assert.equal(response.status, 'completed');
    assert.deepEqual(response.output.map((o) => [o.type, o.name]), [['function_call', 'weather']]);
    assert.deepEqual([response.usage.input_tokens, response.usage.output_tokens], [29, 908]);
    assert.equal(usage.reported, true);
  });

  it('reports what a translated route cannot take as dropped, and clamps temperature to the route range', () => {
    const params = codecFor('responses', providerOf('anthropic')).params;
    assert.deepEqual(params.previous_response_id, { unsupported: true });
    assert.deepEqual(params.temperature, { min: 0, max: 1 });
    assert.equal(codecFor('responses', providerOf('openai')).params.previous_response_id, undefined);
  });
});
