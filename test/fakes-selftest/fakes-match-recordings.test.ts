import assert from 'node:assert/strict';
import { startFakeAnthropic, startFakeGemini, startFakeOpenAI, FAKE_GEMINI_KEY } from '../fakes/index.js';
import { readSse } from '../support/gateway.js';
import { recordedChunks, recordedJson } from '../support/recorded.js';

/** Fields the recordings carry that a fake may leave out: billing tiers, fingerprints, obfuscation padding. */
const optional = new Set(['service_tier', 'obfuscation', 'system_fingerprint', 'completion_tokens_details', 'prompt_tokens_details', 'cache_creation', 'inference_geo', 'promptTokensDetails', 'thoughtsTokenCount', 'responseId', 'modelVersion']);

function assertKeysLike(fake: object, recorded: object, where: string): void {
  const required = Object.keys(recorded).filter((key) => !optional.has(key));
  const missing = required.filter((key) => !(key in fake));
  assert.deepEqual(missing, [], `${where}: the fake lacks ${missing.join(', ')}`);
}

/** The order of event types with runs of the same type collapsed: the shape of a stream. */
function shape(types: string[]): string[] {
  return types.filter((type, i) => type !== types[i - 1]);
}

describe('the fake providers speak the recorded wire formats', () => {
  it('OpenAI: a completion, its choice and usage carry the recorded fields', async () => {
    const fake = await startFakeOpenAI();
    try {
      const response = await fetch(`${fake.baseUrl}/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer sk-fake-openai', 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }) });
      const body = (await response.json()) as { choices: object[]; usage: object };
      const recorded = recordedJson<{ choices: object[]; usage: object }>('openai-chat-text');
      assertKeysLike(body, recorded, 'completion');
      assertKeysLike(body.choices[0]!, recorded.choices[0]!, 'choice');
      assertKeysLike(body.usage, recorded.usage, 'usage');
    } finally {
      await fake.close();
    }
  });

  it('OpenAI: a stream has the recorded chunk fields, one finish_reason, a final usage chunk when asked, and [DONE]', async () => {
    const fake = await startFakeOpenAI();
    try {
      const response = await fetch(`${fake.baseUrl}/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer sk-fake-openai', 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-4o', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'a b c' }] }) });
      const { events } = await readSse(response);
      assert.equal(events.at(-1)?.data, '[DONE]');
      const chunks = events.slice(0, -1).map((e) => JSON.parse(e.data) as { choices: { finish_reason: string | null }[]; usage?: unknown });
      const recorded = recordedChunks('openai-chat-text').map((line) => JSON.parse(line) as object);
      assertKeysLike(chunks[0]!, recorded[0]!, 'first chunk');
      assertKeysLike(chunks.at(-1)!, recorded.at(-1)!, 'usage chunk');
      assert.deepEqual(chunks.at(-1)!.choices, []);
      assert.equal(chunks.filter((c) => c.choices.some((choice) => choice.finish_reason)).length, 1);
    } finally {
      await fake.close();
    }
  });

  it('OpenAI: an embeddings answer carries the recorded fields', async () => {
    const fake = await startFakeOpenAI();
    try {
      const response = await fetch(`${fake.baseUrl}/embeddings`, { method: 'POST', headers: { authorization: 'Bearer sk-fake-openai', 'content-type': 'application/json' }, body: JSON.stringify({ model: 'text-embedding-3-small', input: ['x'] }) });
      const body = (await response.json()) as { data: object[] };
      const recorded = recordedJson<{ data: object[] }>('openai-embedding');
      assertKeysLike(body, recorded, 'embeddings');
      assertKeysLike(body.data[0]!, recorded.data[0]!, 'embedding');
    } finally {
      await fake.close();
    }
  });

  it('Anthropic: a message and its stream follow the recorded event sequence and fields', async () => {
    const fake = await startFakeAnthropic();
    try {
      const headers = { 'x-api-key': 'sk-fake-anthropic', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' };
      const body = { model: 'claude', max_tokens: 50, messages: [{ role: 'user', content: 'one two three' }] };
      const message = await (await fetch(`${fake.baseUrl}/v1/messages`, { method: 'POST', headers, body: JSON.stringify(body) })).json();
      assertKeysLike(message as object, recordedJson('anthropic-text'), 'message');
      const { events } = await readSse(await fetch(`${fake.baseUrl}/v1/messages`, { method: 'POST', headers, body: JSON.stringify({ ...body, stream: true }) }));
      const recorded = recordedChunks('anthropic-text').map((line) => JSON.parse(line) as { type: string });
      assert.deepEqual(shape(events.map((e) => e.event!)), shape(recorded.map((e) => e.type)));
      for (const event of events) assert.equal(event.event, (JSON.parse(event.data) as { type: string }).type, 'the SSE event name is the payload type');
      const fakeStart = JSON.parse(events[0]!.data) as { message: object };
      assertKeysLike(fakeStart.message, (recorded[0] as unknown as { message: object }).message, 'message_start.message');
    } finally {
      await fake.close();
    }
  });

  it('Gemini: each streamed payload carries candidates and usageMetadata as recorded', async () => {
    const fake = await startFakeGemini();
    try {
      const response = await fetch(`${fake.baseUrl}/models/gemini-2.5-pro:streamGenerateContent?alt=sse`, { method: 'POST', headers: { 'x-goog-api-key': FAKE_GEMINI_KEY, 'content-type': 'application/json' }, body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi there' }] }] }) });
      const { events } = await readSse(response);
      const payloads = events.map((e) => JSON.parse(e.data) as { candidates: { content: object; finishReason?: string }[]; usageMetadata: object });
      const recorded = recordedChunks('google-text').map((line) => JSON.parse(line) as { candidates: { content: object }[]; usageMetadata: object });
      assertKeysLike(payloads.at(-1)!, recorded.at(-1)!, 'payload');
      assertKeysLike(payloads.at(-1)!.candidates[0]!.content, recorded.at(-1)!.candidates[0]!.content, 'candidate content');
      assert.ok(payloads.at(-1)!.candidates[0]!.finishReason, 'the last payload says why it finished');
    } finally {
      await fake.close();
    }
  });
});
