/** One sample of a Prometheus text exposition, by metric name and exact label set (0 when absent). */
export function sample(text: string, name: string, labels: Record<string, string | number> = {}): number {
  const wanted = Object.entries(labels)
    .map(([key, value]) => `${key}="${value}"`)
    .sort()
    .join(',');
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (.+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const got = (match[2] ?? '').split(/,(?=[a-zA-Z_]+=")/).filter(Boolean).sort().join(',');
    if (got === wanted) return Number(match[3]);
  }
  return 0;
}
