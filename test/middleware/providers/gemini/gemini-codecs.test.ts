import assert from 'node:assert/strict';
import type { ProviderConfig } from '../../../../packages/middleware/src/config/index.js';
import { codecFor, IncompleteStream, type RouteTarget } from '../../../../packages/middleware/src/providers/index.js';
import { recordedChunks, recordedJson } from '../../../support/recorded.js';

const provider: ProviderConfig = { kind: 'gemini', headers: {}, timeoutMs: 1000, maxRetries: 0, retryBaseMs: 0 };
const target: RouteTarget = { provider, model: 'gemini-2.5-pro', alias: 'gemini', defaultMaxTokens: 1024 };

type Chunk = { model: string; choices: { index: number; delta: { content?: string; tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[] }; finish_reason: string | null }[]; usage?: { prompt_tokens: number; completion_tokens: number } };

function replay(fixture: string, protocol: 'chat' | 'messages' | 'responses' = 'chat', clientBody: Record<string, unknown> = {}, take = Infinity) {
  const translator = codecFor(protocol, provider).stream(target, clientBody);
  const events = recordedChunks(fixture).slice(0, take).flatMap((data) => translator.push({ data }));
  return { translator, events };
}

const chunksOf = (events: { data: unknown }[]) => events.filter((e) => e.data !== '[DONE]').map((e) => e.data as Chunk);

describe('Gemini codecs on recorded Google responses', () => {
  it('builds a generateContent body: systemInstruction, user/model roles, inline images, tools and generationConfig', () => {
    const body = codecFor('chat', provider).request(
      {
        model: 'gemini',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }] },
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }] },
          { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
        ],
        tools: [{ type: 'function', function: { name: 'weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, additionalProperties: false, $schema: 'x' } } }],
        tool_choice: 'required',
        temperature: 1.5,
        top_p: 0.9,
        max_tokens: 300,
        stop: 'END',
        n: 2,
      },
      target,
      {},
    ) as Record<string, any>;
    assert.deepEqual(body.systemInstruction, { parts: [{ text: 'Be brief.' }] });
    assert.deepEqual(body.contents.map((c: { role: string }) => c.role), ['user', 'model', 'user']);
    assert.deepEqual(body.contents[0].parts[1], { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } });
    assert.deepEqual(body.contents[1].parts[0], { functionCall: { name: 'weather', args: { city: 'Paris' } } });
    assert.deepEqual(body.contents[2].parts[0], { functionResponse: { name: 'weather', response: { result: 'sunny' } } });
    assert.deepEqual(body.tools[0].functionDeclarations[0].parameters, { type: 'object', properties: { city: { type: 'string' } } });
    assert.deepEqual(body.toolConfig, { functionCallingConfig: { mode: 'ANY' } });
    assert.deepEqual(body.generationConfig, { temperature: 1.5, topP: 0.9, maxOutputTokens: 300, stopSequences: ['END'], candidateCount: 2 });
  });

  it('puts the model and the method in the path, with alt=sse for streams', () => {
    const codec = codecFor('chat', provider);
    assert.equal(codec.upstreamPath(target, false), '/models/gemini-2.5-pro:generateContent');
    assert.equal(codec.upstreamPath(target, true), '/models/gemini-2.5-pro:streamGenerateContent?alt=sse');
  });

  it('answers finish_reason tool_calls for a recorded functionCall that Gemini finished with STOP', () => {
    const { body, usage } = codecFor('chat', provider).response(recordedJson('google-tool-call'), target, {});
    const choice = (body as { choices: { finish_reason: string; message: { tool_calls: { function: { name: string; arguments: string } }[] } }[] }).choices[0]!;
    assert.equal(choice.finish_reason, 'tool_calls');
    assert.equal(choice.message.tool_calls[0]!.function.name, 'weather');
    assert.deepEqual(JSON.parse(choice.message.tool_calls[0]!.function.arguments), { location: 'San Francisco' });
    // Thinking tokens are output Google bills: 15 candidates + 893 thoughts.
    assert.deepEqual(usage, { inputTokens: 29, outputTokens: 908, reported: true, cachedInputTokens: 0 });
  });

  it('keeps the thought signature in the tool-call id and sends it back with the call on the next turn', () => {
    const codec = codecFor('chat', provider);
    const { body } = codec.response(recordedJson('google-tool-call'), target, {});
    const call = (body as { choices: { message: { tool_calls: { id: string; type: 'function'; function: { name: string; arguments: string } }[] } }[] }).choices[0]!.message.tool_calls[0]!;
    const next = codec.request({ model: 'gemini', messages: [{ role: 'user', content: 'weather?' }, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: call.id, content: '{"temp":20}' }] }, target, {}) as Record<string, any>;
    const recorded = recordedJson<{ candidates: { content: { parts: { thoughtSignature: string }[] } }[] }>('google-tool-call').candidates[0]!.content.parts[0]!.thoughtSignature;
    assert.equal(next.contents[1].parts[0].thoughtSignature, recorded);
    assert.deepEqual(next.contents[2].parts[0].functionResponse, { name: 'weather', response: { temp: 20 } });
  });

  it('streams recorded text as chat chunks with one finish_reason and the usage chunk the client asked for', () => {
    const { translator, events } = replay('google-text', 'chat', { stream_options: { include_usage: true } });
    const all = [...events, ...translator.end()];
    const chunks = chunksOf(all);
    assert.equal(all.at(-1)?.data, '[DONE]');
    assert.ok(chunks.every((c) => c.model === 'gemini'));
    assert.deepEqual(chunks.map((c) => c.choices[0]?.finish_reason).filter(Boolean), ['stop']);
    assert.match(chunks.map((c) => c.choices[0]?.delta.content ?? '').join(''), /strawberry/);
    assert.deepEqual(chunks.at(-1)?.usage, { prompt_tokens: 9, completion_tokens: 208, total_tokens: 217 });
  });

  it('leaves thought summaries out of the answer text', () => {
    const { events } = replay('google-stream-no-args-tool-call');
    const text = chunksOf(events).map((c) => c.choices[0]?.delta.content ?? '').join('');
    assert.doesNotMatch(text, /Processing User Requests/);
  });

  it('assembles function-call arguments Gemini streams piecewise into chat tool-call deltas', () => {
    const { translator, events } = replay('google-stream-tool-call-arguments');
    translator.end();
    const calls = chunksOf(events).flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    const byIndex = new Map<number, { name: string; args: string }>();
    for (const call of calls) {
      const entry = byIndex.get(call.index) ?? { name: '', args: '' };
      entry.name += call.function?.name ?? '';
      entry.args += call.function?.arguments ?? '';
      byIndex.set(call.index, entry);
    }
    assert.deepEqual([...byIndex.values()].map((c) => [c.name, JSON.parse(c.args)]), [
      ['getWeather', { location: 'Boston' }],
      ['getWeather', { location: 'San Francisco' }],
    ]);
    assert.deepEqual(chunksOf(events).map((c) => c.choices[0]?.finish_reason).filter(Boolean), ['tool_calls']);
  });

  it('streams a call without arguments and three streamed ones, each with its own index', () => {
    const { events } = replay('google-stream-no-args-tool-call');
    const starts = chunksOf(events).flatMap((c) => c.choices[0]?.delta.tool_calls ?? []).filter((c) => c.function?.name);
    assert.deepEqual(starts.map((c) => [c.index, c.function?.name]), [[0, 'read_theme'], [1, 'read_screen'], [2, 'read_screen'], [3, 'read_screen']]);
    assert.equal(new Set(starts.map((c) => c.id)).size, 4);
  });

  it('never adds a finish_reason to a Gemini stream that broke, unlike contract §6.1 rule 4 (DESIGN does better)', () => {
    const { translator, events } = replay('google-text', 'chat', {}, 1);
    assert.deepEqual(chunksOf(events).map((c) => c.choices[0]?.finish_reason).filter(Boolean), []);
    assert.throws(() => translator.end(), IncompleteStream);
    assert.ok(translator.text().length > 0, 'the partial text is known, for billing');
  });

  it('streams recorded Gemini text to a messages client ending with message_delta and message_stop', () => {
    const { translator, events } = replay('google-text', 'messages');
    const all = [...events, ...translator.end()];
    assert.equal(all[0]?.event, 'message_start');
    assert.deepEqual(all.slice(-2).map((e) => e.event), ['message_delta', 'message_stop']);
    assert.deepEqual((all.at(-2)?.data as { usage: unknown }).usage, { input_tokens: 9, output_tokens: 208 });
  });

  it('never closes a broken Gemini stream to a messages client with message_stop', () => {
    const { translator, events } = replay('google-text', 'messages', {}, 1);
    assert.ok(!events.some((e) => e.event === 'message_stop'));
    assert.throws(() => translator.end(), IncompleteStream);
  });

  it('converts a recorded Gemini answer for a messages client, carrying top_k to topK', () => {
    const codec = codecFor('messages', provider);
    const { body } = codec.response(recordedJson('google-text'), target, {});
    assert.equal((body as { model: string; stop_reason: string }).model, 'gemini');
    assert.equal((body as { stop_reason: string }).stop_reason, 'end_turn');
    const request = codec.request({ model: 'gemini', max_tokens: 10, top_k: 5, messages: [{ role: 'user', content: 'hi' }] }, target, {}) as { generationConfig: Record<string, unknown> };
    assert.deepEqual(request.generationConfig, { maxOutputTokens: 10, topK: 5 });
  });

  it('maps MAX_TOKENS to length and SAFETY to content_filter, and a blocked prompt to content_filter', () => {
    const codec = codecFor('chat', provider);
    const finish = (upstream: unknown) => (codec.response(upstream, target, {}).body as { choices: { finish_reason: string }[] }).choices[0]!.finish_reason;
    assert.equal(finish({ candidates: [{ content: { parts: [{ text: 'a' }] }, finishReason: 'MAX_TOKENS' }] }), 'length');
    assert.equal(finish({ candidates: [{ content: { parts: [] }, finishReason: 'SAFETY' }] }), 'content_filter');
    assert.equal(finish({ promptFeedback: { blockReason: 'SAFETY' } }), 'content_filter');
  });
});

describe('Gemini embeddings codec', () => {
  const embedTarget: RouteTarget = { ...target, model: 'gemini-embedding-001', alias: 'gemini-embedding' };
  const codec = codecFor('embeddings', provider);

  it('asks batchEmbedContents with one request per input', () => {
    assert.equal(codec.upstreamPath(embedTarget, false), '/models/gemini-embedding-001:batchEmbedContents');
    assert.deepEqual(codec.request({ input: ['a', 'b'], dimensions: 8 }, embedTarget, {}), {
      requests: ['a', 'b'].map((text) => ({ model: 'models/gemini-embedding-001', content: { parts: [{ text }] }, outputDimensionality: 8 })),
    });
  });

  it('answers OpenAI list shape in float or base64 with tokenizer-counted input tokens', () => {
    const upstream = { embeddings: [{ values: [0.5, -1] }] };
    const floats = codec.response(upstream, embedTarget, { input: 'hello world' });
    assert.deepEqual(floats.body, { object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.5, -1] }], model: 'gemini-embedding', usage: { prompt_tokens: 2, total_tokens: 2 } });
    assert.deepEqual(floats.usage, { inputTokens: 2, outputTokens: 0, reported: true });
    const base64 = codec.response(upstream, embedTarget, { input: 'hello world', encoding_format: 'base64' }).body as { data: { embedding: string }[] };
    assert.deepEqual([...new Float32Array(new Uint8Array(Buffer.from(base64.data[0]!.embedding, 'base64')).buffer)], [0.5, -1]);
  });

  it('refuses token-id input, which Gemini cannot embed, with a 400', () => {
    assert.throws(() => codec.request({ input: [1, 2, 3] }, embedTarget, {}), (error: { status?: number }) => error.status === 400);
  });
});
