import assert from 'node:assert/strict';
import type { EventShape } from '../../../packages/middleware/src/providers/decode-event.js';
import { anthropicMessage, checkAnswer, openaiChatCompletion, openaiResponse } from '../../../packages/middleware/src/providers/upstream-answers.js';
import { recordedJson } from '../../support/recorded.js';

const shapes: { shape: EventShape<unknown>; fixtures: string[]; breakages: ((answer: Record<string, any>) => void)[] }[] = [
  {
    shape: openaiChatCompletion as EventShape<unknown>,
    fixtures: ['openai-chat-text'],
    breakages: [(a) => delete a.choices, (a) => (a.choices = []), (a) => (a.choices = 'x'), (a) => (a.choices = [null]), (a) => (a.choices[0].message = null), (a) => (a.choices[0].message.content = 5), (a) => (a.choices[0].message.tool_calls = 'x'), (a) => (a.choices[0].message.tool_calls = [null]), (a) => (a.choices[0].message.tool_calls = [{ function: { arguments: 1 } }]), (a) => (a.choices[0].finish_reason = 0), (a) => (a.usage = 'x')],
  },
  {
    shape: anthropicMessage as EventShape<unknown>,
    fixtures: ['anthropic-text', 'anthropic-json-tool.1', 'anthropic-tool-no-args', 'anthropic-refusal'],
    breakages: [(a) => delete a.content, (a) => (a.content = 'x'), (a) => (a.content = [null]), (a) => (a.content[0].type = 1), (a) => (a.content[0].text = 5), (a) => (a.stop_reason = 1), (a) => (a.usage = [])],
  },
  {
    shape: openaiResponse as EventShape<unknown>,
    fixtures: ['openai-responses-tool-calls'],
    breakages: [(a) => delete a.output, (a) => (a.output = {}), (a) => (a.output = [5]), (a) => (a.output[0].arguments = {}), (a) => (a.output[0].content = 'x'), (a) => (a.output[0].content = [{ text: 1 }]), (a) => (a.usage = 1)],
  },
];

describe('upstream whole answers: one schema, one guard, one verdict', () => {
  for (const { shape, fixtures, breakages } of shapes) {
    it(`accepts every recorded ${shape.name} and rejects each broken field, the guard agreeing with the zod schema`, () => {
      let broken = 0;
      for (const fixture of fixtures) {
        const answer = recordedJson(fixture);
        assert.equal(shape.is(answer), true, fixture);
        assert.equal(shape.schema.safeParse(answer).success, true, fixture);
        for (const breakage of breakages) {
          const copy = structuredClone(answer) as Record<string, any>;
          try {
            breakage(copy);
          } catch {
            continue; // the field's parent is absent in this answer
          }
          const verdict = shape.is(copy);
          assert.equal(verdict, shape.schema.safeParse(copy).success, `${breakage} on ${fixture}`);
          if (!verdict) broken++;
        }
      }
      assert.ok(broken >= breakages.length, `${broken} broken answers rejected`);
    });
  }

  it('names what is wrong in the failure', () => {
    assert.throws(() => checkAnswer({ error: { message: 'overloaded' } }, openaiChatCompletion as EventShape<unknown>), /not a chat completion \(choices: /);
    assert.throws(() => checkAnswer(null, anthropicMessage as EventShape<unknown>), /not a message/);
  });
});
