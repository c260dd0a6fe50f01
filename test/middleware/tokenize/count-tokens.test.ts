import assert from 'node:assert/strict';
import { countTokens, estimateInputTokens } from '../../../packages/middleware/src/tokenize/index.js';

/** The estimate as it was before counts were kept per text: the tokenizer over the whole prompt at once. */
function wholePromptCount(messages: { role: string; content: string }[]): number {
  const text = messages.map((message) => `${message.role}\n${message.content}\n`).join('');
  return countTokens(text) + 3 * messages.length;
}

/** Texts whose edges the tokenizer's pre-split treats specially: newlines, spaces, slashes, punctuation, empties. */
const EDGES = ['', '\n', '\r\n', ' ', '  \n', '/', '/path', ' x', '\tx', 'x', 'X.', 'x.\n', 'éa', '日本', '123', '!?', "'s", '\u2028', '😀', 'a\n\n', '.'];

function randomText(random: () => number): string {
  let text = '';
  const parts = 1 + Math.floor(random() * 4);
  for (let i = 0; i < parts; i++) text += EDGES[Math.floor(random() * EDGES.length)]!;
  return text;
}

/** A seeded generator, so a failure names a body that can be replayed. */
function mulberry32(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('the prompt estimate counted per text', function () {
  it('equals the tokenizer\'s count of the whole prompt, for texts with every kind of edge', function () {
    const random = mulberry32(19);
    for (let i = 0; i < 2_000; i++) {
      const messages = Array.from({ length: 1 + Math.floor(random() * 4) }, () => ({ role: randomText(random), content: randomText(random) }));
      const body = { model: 'm', messages };
      assert.equal(estimateInputTokens(body), wholePromptCount(messages), JSON.stringify(messages));
      // The second time every text comes from the cache: the same count.
      assert.equal(estimateInputTokens(body), wholePromptCount(messages), JSON.stringify(messages));
    }
  });

  it('counts a conversation whose history is re-sent on every turn the same as counting it whole', function () {
    const messages = [{ role: 'system', content: 'You are a terse assistant. Answer in one line.' }];
    for (let turn = 0; turn < 20; turn++) {
      messages.push({ role: 'user', content: `Question ${turn}: what is ${turn} squared?` }, { role: 'assistant', content: `${turn * turn}.` });
      assert.equal(estimateInputTokens({ model: 'm', messages }), wholePromptCount(messages));
    }
  });
});
