import assert from 'node:assert/strict';
import type { EventShape } from '../../../../packages/middleware/src/providers/decode-event.js';
import { converseEventShapes } from '../../../../packages/middleware/src/providers/bedrock/converse-events.js';

/** Events as Bedrock sends them (with AWS's `p` padding), and ways to break each. */
const cases: { type: keyof typeof converseEventShapes; event: Record<string, any>; breakages: ((event: Record<string, any>) => void)[] }[] = [
  { type: 'messageStart', event: { role: 'assistant', p: 'abcd' }, breakages: [(e) => delete e.role, (e) => (e.role = 1)] },
  {
    type: 'contentBlockStart',
    event: { contentBlockIndex: 1, start: { toolUse: { toolUseId: 'tooluse_1', name: 'f' } }, p: 'ab' },
    breakages: [(e) => (e.contentBlockIndex = -1), (e) => (e.contentBlockIndex = 1.5), (e) => (e.contentBlockIndex = '1'), (e) => delete e.start, (e) => (e.start = []), (e) => (e.start.toolUse = null), (e) => (e.start.toolUse.name = 3), (e) => delete e.start.toolUse.toolUseId],
  },
  { type: 'contentBlockStart', event: { contentBlockIndex: 0, start: {} }, breakages: [] },
  {
    type: 'contentBlockDelta',
    event: { contentBlockIndex: 0, delta: { text: 'Hi' }, p: 'abcdefgh' },
    breakages: [(e) => (e.delta = 'Hi'), (e) => (e.delta.text = null), (e) => (e.delta.text = 5), (e) => (e.delta.toolUse = { input: {} }), (e) => (e.delta.toolUse = 'x'), (e) => delete e.contentBlockIndex],
  },
  { type: 'contentBlockDelta', event: { contentBlockIndex: 2, delta: { toolUse: { input: '{"a":' } } }, breakages: [(e) => delete e.delta.toolUse.input] },
  { type: 'contentBlockDelta', event: { contentBlockIndex: 0, delta: { reasoningContent: { text: 'thinking' } } }, breakages: [] },
  { type: 'contentBlockStop', event: { contentBlockIndex: 0 }, breakages: [(e) => (e.contentBlockIndex = null)] },
  { type: 'messageStop', event: { stopReason: 'end_turn', additionalModelResponseFields: {} }, breakages: [(e) => delete e.stopReason, (e) => (e.stopReason = 0)] },
  {
    type: 'metadata',
    event: { usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7, cacheReadInputTokens: 0 }, metrics: { latencyMs: 42 } },
    breakages: [(e) => (e.usage = 'x'), (e) => (e.usage = null), (e) => (e.usage = [])],
  },
  { type: 'metadata', event: { metrics: { latencyMs: 1 } }, breakages: [(e) => (e.metadata = 1) && (e.usage = 5)] },
];

describe('ConverseStream event shapes: the per-event guard and the zod schema give the same verdict', () => {
  for (const { type, event, breakages } of cases) {
    it(`${type}: accepts ${JSON.stringify(event)} and rejects each of its ${breakages.length} breakages, guard and schema alike`, () => {
      const shape = converseEventShapes[type] as EventShape<unknown>;
      assert.equal(shape.is(event), true);
      assert.equal(shape.schema.safeParse(event).success, true);
      for (const [index, breakage] of breakages.entries()) {
        const broken = structuredClone(event);
        breakage(broken);
        assert.equal(shape.is(broken), false, `guard accepted breakage ${index}`);
        assert.equal(shape.schema.safeParse(broken).success, false, `schema accepted breakage ${index}`);
      }
    });
  }
});
