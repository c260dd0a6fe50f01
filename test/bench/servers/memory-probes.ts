// What a memory bench asks a forked server over IPC (gateway-bench.ts, stream-heap-census.ts): its memory or a
// heap snapshot, both after a full GC (forkServer passes --expose-gc), so they count what is live, not garbage.
import { writeHeapSnapshot } from 'node:v8';

const gc = (): void => (globalThis as { gc?: () => void }).gc?.();

/** Answers `'memory'` with `{rss, heapUsed}` and `{heapSnapshot: path}` with the snapshot's path once written. */
export function answerMemoryProbes(): void {
  process.on('message', (message) => {
    if (message === 'memory') {
      gc();
      const { rss, heapUsed } = process.memoryUsage();
      process.send?.({ rss, heapUsed });
      return;
    }
    const path = (message as { heapSnapshot?: unknown } | null)?.heapSnapshot;
    if (typeof path !== 'string') return;
    gc();
    process.send?.({ heapSnapshot: writeHeapSnapshot(path) });
  });
}
