import assert from 'node:assert/strict';
import type { ProviderConfig } from '../../../packages/middleware/src/config/index.js';
import type { EventShape } from '../../../packages/middleware/src/providers/decode-event.js';
import { geminiStreamEvent } from '../../../packages/middleware/src/providers/gemini/gemini-events.js';
import { codecFor, IncompleteStream, type RouteTarget } from '../../../packages/middleware/src/providers/index.js';
import { anthropicMessagesEvent, openaiChatChunk, openaiResponsesEvent } from '../../../packages/middleware/src/providers/upstream-events.js';
import { recordedChunks } from '../../support/recorded.js';

const shapes: { shape: EventShape<unknown>; fixtures: string[]; breakages: ((event: Record<string, any>) => void)[] }[] = [
  {
    shape: openaiChatChunk as EventShape<unknown>,
    fixtures: ['openai-chat-text'],
    breakages: [(e) => (e.choices = 'x'), (e) => (e.choices = [5]), (e) => (e.choices[0].finish_reason = 5), (e) => (e.choices[0].delta = []), (e) => (e.choices[0].delta.content = 3), (e) => (e.choices[0].delta.tool_calls = [{ function: { arguments: 1 } }]), (e) => (e.usage = 'x'), (e) => (e.usage = [])],
  },
  {
    shape: anthropicMessagesEvent as EventShape<unknown>,
    fixtures: ['anthropic-text', 'anthropic-json-tool.1', 'anthropic-tool-no-args', 'anthropic-message-delta-input-tokens'],
    breakages: [(e) => (e.type = 7), (e) => delete e.type, (e) => (e.message = null), (e) => (e.message = { usage: 'x' }), (e) => (e.delta = { text: 1 }), (e) => (e.delta = { partial_json: false }), (e) => (e.delta = 'x'), (e) => (e.usage = 4), (e) => (e.index = '0')],
  },
  {
    shape: openaiResponsesEvent as EventShape<unknown>,
    fixtures: ['openai-responses-tool-calls'],
    breakages: [(e) => (e.type = null), (e) => (e.response = 'x'), (e) => (e.response = { usage: [1] })],
  },
  {
    shape: geminiStreamEvent as EventShape<unknown>,
    fixtures: ['google-text', 'google-tool-call', 'google-reasoning', 'google-stream-tool-call-arguments'],
    breakages: [(e) => (e.candidates = {}), (e) => (e.candidates = [null]), (e) => (e.candidates[0].finishReason = 1), (e) => (e.candidates[0].index = '0'), (e) => (e.candidates[0].content = { parts: [1] }), (e) => (e.usageMetadata = 'x'), (e) => (e.promptFeedback = { blockReason: 2 }), (e) => (e.candidates[0].content.parts[0].text = 1), (e) => (e.candidates[0].content.parts[0].thought = 'yes'), (e) => (e.candidates[0].content.parts[0].functionCall = { name: 5 }), (e) => (e.candidates[0].content.parts[0].functionCall = { partialArgs: [{ stringValue: 'x' }] }), (e) => (e.candidates[0].content.parts[0].functionCall = { args: [] }), (e) => (e.responseId = 1)],
  },
];

/** Recorded payloads, the two lines of the Responses fixture that lack their last `}` repaired (as its tests do). */
function payloads(fixture: string): unknown[] {
  return recordedChunks(fixture)
    .filter((line) => line !== '[DONE]')
    .map((line) => {
      try {
        return JSON.parse(line);
      } catch {
        return JSON.parse(`${line}}`);
      }
    });
}

describe('upstream stream events: one schema, one guard, one verdict', () => {
  for (const { shape, fixtures, breakages } of shapes) {
    it(`accepts every recorded ${shape.name} event and rejects each broken field, with the guard agreeing with the zod schema`, () => {
      let broken = 0;
      for (const fixture of fixtures) {
        for (const event of payloads(fixture)) {
          assert.equal(shape.is(event), true, JSON.stringify(event));
          assert.equal(shape.schema.safeParse(event).success, true);
          for (const breakage of breakages) {
            const copy = structuredClone(event) as Record<string, any>;
            try {
              breakage(copy);
            } catch {
              continue; // the field's parent is absent in this event
            }
            const verdict = shape.is(copy);
            assert.equal(verdict, shape.schema.safeParse(copy).success, `${breakage} on ${JSON.stringify(event).slice(0, 200)}`);
            if (!verdict) broken++;
          }
        }
      }
      assert.ok(broken >= breakages.length, `${broken} broken events rejected`);
    });
  }

  it('ends a stream abnormally at a malformed event, naming the field, instead of relaying or crashing', () => {
    const provider: ProviderConfig = { kind: 'openai', headers: {}, timeoutMs: 1000, maxRetries: 0, retryBaseMs: 0 };
    const target: RouteTarget = { provider, model: 'gpt-4.1', alias: 'my-alias', defaultMaxTokens: 1024 };
    const translator = codecFor('chat', provider).stream(target, {});
    translator.push({ data: JSON.stringify({ id: 'c', choices: [{ index: 0, delta: { content: 'Hel' }, finish_reason: null }] }) });
    assert.throws(() => translator.push({ data: JSON.stringify({ id: 'c', choices: [{ index: 0, delta: { content: 42 }, finish_reason: null }] }) }), (error: unknown) => error instanceof IncompleteStream && /choices\.0\.delta\.content/.test(error.message));
    assert.throws(() => translator.push({ data: '{"id":' }), IncompleteStream);
    assert.equal(translator.text(), 'Hel');
  });
});
