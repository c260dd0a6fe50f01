import assert from 'node:assert/strict';
import { costMicros, usdToMicros } from '../../../packages/middleware/src/policy/index.js';

describe('money in integer micro-dollars', () => {
  it('prices tokens exactly and rounds each request up to the next micro-dollar', () => {
    assert.equal(costMicros({ inputTokens: 1000, outputTokens: 500 }, { input: 3, output: 15 }), 10_500);
    // 1 token at USD 0.15 per million is 0.15 micro-dollars: billed as 1, never as 0.
    assert.equal(costMicros({ inputTokens: 1, outputTokens: 0 }, { input: 0.15, output: 0.6 }), 1);
    assert.equal(costMicros({ inputTokens: 0, outputTokens: 0 }, { input: 3, output: 15 }), 0);
    // 7 tokens at 0.1 per million = 0.7 → 1; 10 tokens exactly 1 micro-dollar stays 1.
    assert.equal(costMicros({ inputTokens: 7, outputTokens: 0 }, { input: 0.1, output: 0 }), 1);
    assert.equal(costMicros({ inputTokens: 10, outputTokens: 0 }, { input: 0.1, output: 0 }), 1);
  });

  it('stays exact where a float division would round: a product far beyond 2^53 pico-dollars', () => {
    // 10^12 tokens at USD 75 per million: 75,000,000 micro-dollars per million tokens → 7.5e13 micro-dollars.
    assert.equal(costMicros({ inputTokens: 0, outputTokens: 1e12 }, { input: 0, output: 75 }), 75_000_000_000_000);
    // One pico-dollar above a whole micro-dollar still rounds up.
    assert.equal(costMicros({ inputTokens: 1e9 + 1, outputTokens: 0 }, { input: 0.000001, output: 0 }), 1_001);
  });

  it('stays exact on both sides of 2^53 pico-dollars, where plain numbers give way to BigInt', () => {
    // 9,007,199,254,000,001 pico-dollars: 9,007,199,254 micro-dollars and one pico over, so one more.
    assert.equal(costMicros({ inputTokens: 9_007_199_254_000_001, outputTokens: 0 }, { input: 0.000001, output: 0 }), 9_007_199_255);
    assert.equal(costMicros({ inputTokens: 9_007_199_254_000_000, outputTokens: 0 }, { input: 0.000001, output: 0 }), 9_007_199_254);
    // (2^53 - 1) tokens at 2 pico-dollars each = 18,014,398,509,481,982 pico-dollars, past what a number holds exactly.
    assert.equal(costMicros({ inputTokens: 9_007_199_254_740_991, outputTokens: 0 }, { input: 0.000002, output: 0 }), 18_014_398_510);
  });

  it('converts configured USD to micro-dollars without float residue', () => {
    assert.equal(usdToMicros(0.1 + 0.2), 300_000);
    assert.equal(usdToMicros(25), 25_000_000);
  });
});
