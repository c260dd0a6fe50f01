import assert from 'node:assert/strict';
import { embeddingInputTokens } from '../../../../packages/middleware/src/tokenize/index.js';
import { TEST_KEY, startIssue5Stack, type Issue5Stack } from '../../endpoints-issue5/issue5-stack.js';
import { longestStallDuring } from '../../../support/event-loop-stall.js';

/** Random six-letter words: the tokenizer's slow case (no merge is cached), ~1 MB in two inputs. */
function randomWords(count: number): string {
  return Array.from({ length: count }, () => Math.random().toString(36).slice(2, 8)).join(' ');
}

/**
 * A Gemini embeddings answer shows the tokenizer's count of the input (Gemini reports none). The request's prompt
 * was already counted in turns of the event loop (a large body), and the codec counted it all again at once: 20 MiB
 * of input held the process's event loop for 25 s. It reads the request's own count now.
 */
describe('a large embeddings input on a Gemini route', function () {
  this.timeout(120_000);
  let stack: Issue5Stack;
  before(async () => {
    stack = await startIssue5Stack();
  });
  after(() => stack.close());

  it('is counted once, in turns: the event loop keeps turning, and the answer and the bill carry the count', async () => {
    const input = [randomWords(75_000), randomWords(75_000)];
    const started = performance.now();
    const tokens = embeddingInputTokens(input);
    const countedAtOnceMs = performance.now() - started;

    const { result: answer, stallMs: longestGapMs } = await longestStallDuring(async () => {
      const response = await fetch(`${stack.gateway.url}/v1/embeddings`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` }, body: JSON.stringify({ model: 'gemini-embed', input }) });
      assert.equal(response.status, 200);
      return (await response.json()) as { usage: { prompt_tokens: number }; data: unknown[] };
    }, 2);
    assert.ok(longestGapMs < countedAtOnceMs / 2, `the event loop stood still for ${longestGapMs.toFixed(0)} ms (counting at once takes ${countedAtOnceMs.toFixed(0)} ms)`);
    assert.equal(answer.data.length, 2);
    assert.equal(answer.usage.prompt_tokens, tokens);
    const usage = await stack.gateway.gate.admin.usage('acme');
    assert.deepEqual([usage.requests, usage.inputTokens, usage.inFlight], [1, tokens, 0]);
  });
});
