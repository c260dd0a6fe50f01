import assert from 'node:assert/strict';
import { resetDuration, usdOfMicros } from '../../../packages/middleware/src/endpoints/success-headers.js';

describe('success header values', () => {
  it('writes reset durations as OpenAI does (Go durations)', () => {
    assert.equal(resetDuration(20), '20ms');
    assert.equal(resetDuration(999), '999ms');
    assert.equal(resetDuration(1_000), '1s');
    assert.equal(resetDuration(59_847), '59.847s');
    assert.equal(resetDuration(60_000), '1m0s');
    assert.equal(resetDuration(61_000), '1m1s');
    assert.equal(resetDuration(60_500), '1m0.5s');
    assert.equal(resetDuration(-5), '0ms');
  });

  it('writes micro-dollars as exact six-place USD', () => {
    assert.equal(usdOfMicros(0), '0.000000');
    assert.equal(usdOfMicros(3_180), '0.003180');
    assert.equal(usdOfMicros(1_234_567), '1.234567');
    assert.equal(usdOfMicros(9_007_199_254_740_991), '9007199254.740991');
  });
});
