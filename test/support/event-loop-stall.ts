/**
 * The event loop's longest stop while `work` runs, sampled by a timer every `sampleMs`. The gateway is in process in
 * these tests, so this is how long every other request (and every stream, every timer) of the process waited.
 *
 * @example
 * const { result, stallMs } = await longestStallDuring(() => fetch(url));
 */
export async function longestStallDuring<T>(work: () => Promise<T>, sampleMs = 10): Promise<{ result: T; stallMs: number }> {
  let last = performance.now();
  let longest = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, sampleMs);
  try {
    const result = await work();
    longest = Math.max(longest, performance.now() - last);
    return { result, stallMs: Math.round(longest) };
  } finally {
    clearInterval(ticker);
  }
}
