import assert from 'node:assert/strict';
import { billedTokens, costMicros } from '../../../packages/middleware/src/policy/index.js';

describe('cached prompt tokens in integer micro-dollars', () => {
  const sonnet = { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 };

  it('bills cache reads, cache writes and the rest of the prompt each at its own rate, rounding the request up once', () => {
    // 300 × 3 + 1,200 × 0.3 + 500 × 3.75 + 3 × 15 = 900 + 360 + 1,875 + 45 micro-dollars.
    assert.equal(costMicros({ inputTokens: 2_000, outputTokens: 3, cachedInputTokens: 1_200, cacheWriteTokens: 500 }, sonnet), 3_180);
    // 1 cached token at 0.3 per million is 0.3 micro-dollars: billed as 1, never 0.
    assert.equal(costMicros({ inputTokens: 1, outputTokens: 0, cachedInputTokens: 1 }, sonnet), 1);
  });

  it('bills cached tokens at the input rate when a price names no cache rates', () => {
    assert.equal(costMicros({ inputTokens: 1_000, outputTokens: 0, cachedInputTokens: 1_000, cacheWriteTokens: 0 }, { input: 3, output: 15 }), 3_000);
  });

  it('stays exact in BigInt when the products pass 2^53 pico-dollars', () => {
    // 10^12 cached tokens at USD 0.5 per million = 5 × 10^11 micro-dollars; 10^12 written at 6.25 per million = 6.25 × 10^12.
    assert.equal(costMicros({ inputTokens: 2e12, outputTokens: 0, cachedInputTokens: 1e12, cacheWriteTokens: 1e12 }, { input: 5, output: 25, cachedInput: 0.5, cacheWrite: 6.25 }), 6_750_000_000_000);
  });

  it('never bills more cached or written tokens than the prompt had, nor negative or fractional counts', () => {
    assert.deepEqual(billedTokens({ inputTokens: 10, outputTokens: 2, cachedInputTokens: 12, cacheWriteTokens: 5 }), { inputTokens: 10, outputTokens: 2, cachedInputTokens: 10, cacheWriteTokens: 0 });
    assert.deepEqual(billedTokens({ inputTokens: 10.4, outputTokens: -3, cachedInputTokens: -1, cacheWriteTokens: Number.NaN }), { inputTokens: 10, outputTokens: 0, cachedInputTokens: 0, cacheWriteTokens: 0 });
    assert.deepEqual(billedTokens({ inputTokens: 10, outputTokens: 1 }), { inputTokens: 10, outputTokens: 1, cachedInputTokens: 0, cacheWriteTokens: 0 });
  });
});
