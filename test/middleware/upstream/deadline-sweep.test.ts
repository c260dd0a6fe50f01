import assert from 'node:assert/strict';
import { DeadlineSweep, type Expiring } from '../../../packages/middleware/src/upstream/deadline-sweep.js';

/** A watched call that notes the sweep tick it expired at. */
function call(expiredAt: number[], tick: () => number): Expiring {
  return { expiresAtTick: 0, expired: () => expiredAt.push(tick()) };
}

describe('DeadlineSweep', () => {
  // Ticks are driven by the test (sweep()); the resolution is far above the test's length so the timer never fires.
  const resolutionMs = 3_600_000;

  it('tells a call its deadline passed only once the whole deadline is certain to have passed, never a tick early', () => {
    // A 1,000 ms deadline at 250 ms a tick: the call may be watched just before a tick, so 4 ticks could be only
    // 750 ms; it expires on the fifth.
    const sweep = new DeadlineSweep(1_000 * (resolutionMs / 250), resolutionMs);
    let ticks = 0;
    const expiredAt: number[] = [];
    sweep.watch(call(expiredAt, () => ticks));
    for (ticks = 1; ticks <= 4; ticks++) sweep.sweep();
    assert.deepEqual(expiredAt, []);
    sweep.sweep();
    assert.deepEqual(expiredAt, [5]);
    sweep.stop();
  });

  it('never tells a call that was released first, and tells later calls in the order they were watched', () => {
    const sweep = new DeadlineSweep(2 * resolutionMs, resolutionMs);
    let ticks = 0;
    const expiredAt: number[] = [];
    const released = call(expiredAt, () => -1);
    sweep.watch(released);
    sweep.sweep();
    ticks = 1;
    const later = call(expiredAt, () => ticks);
    sweep.watch(later);
    sweep.release(released);
    for (ticks = 2; ticks <= 6; ticks++) sweep.sweep();
    assert.deepEqual(expiredAt, [4]);
    sweep.stop();
  });

  it('takes an eighth of the deadline as its resolution, at most 500 ms, so a short deadline fires close to its time', async () => {
    const sweep = new DeadlineSweep(40);
    const started = performance.now();
    const elapsed = await new Promise<number>((resolve) => sweep.watch({ expiresAtTick: 0, expired: () => resolve(performance.now() - started) }));
    assert.ok(elapsed >= 40 - 1, `expired after ${elapsed} ms`);
    sweep.stop();
  });
});
