import assert from 'node:assert/strict';
import { UseOrder } from '../../../packages/middleware/src/idempotency/use-order.js';

const item = (name: string) => ({ name, lastUse: -1 });

describe('use order: least recently used first, at O(1) a use', () => {
  it('gives the items back oldest use first, a touched item after the others, a forgotten one never', () => {
    const order = new UseOrder<{ name: string; lastUse: number }>();
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map(item) as [ReturnType<typeof item>, ReturnType<typeof item>, ReturnType<typeof item>, ReturnType<typeof item>];
    for (const x of [a, b, c, d]) order.touch(x);
    order.touch(a);
    order.forget(c);
    assert.equal(order.size, 3);
    assert.deepEqual([order.takeOldest(), order.takeOldest(), order.takeOldest(), order.takeOldest()].map((x) => x?.name), ['b', 'd', 'a', undefined]);
    assert.equal(order.size, 0);
  });

  it('keeps the order through its rebuilds, however many uses leave stale places', () => {
    const order = new UseOrder<{ name: string; lastUse: number }>();
    const items = Array.from({ length: 10 }, (_, i) => item(`i${i}`));
    for (const x of items) order.touch(x);
    // 50,000 uses of the first five: many rebuilds; the last five stay the oldest, in their order.
    for (let n = 0; n < 50_000; n++) order.touch(items[n % 5]!);
    assert.equal(order.size, 10);
    const names = Array.from({ length: 10 }, () => order.takeOldest()!.name);
    assert.deepEqual(names, ['i5', 'i6', 'i7', 'i8', 'i9', 'i0', 'i1', 'i2', 'i3', 'i4']);
  });
});
