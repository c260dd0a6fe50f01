import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
}

/**
 * The top self-time files and functions of the `.cpuprofile` a `--cpu-prof` server wrote into `dir`. The largest
 * file is the server's main thread: tsx's loader thread writes a profile of its own, almost all idle.
 */
export function profileSummary(dir: string): string {
  const file = readdirSync(dir)
    .filter((name) => name.endsWith('.cpuprofile'))
    .sort((a, b) => statSync(join(dir, b)).size - statSync(join(dir, a)).size)[0]!;
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { nodes: ProfileNode[] };
  const total = profile.nodes.reduce((sum, n) => sum + n.hitCount, 0);
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  for (const node of profile.nodes) {
    const where = node.callFrame.url.replace(/^.*\/(node_modules\/|packages\/)/, '$1') || '(native)';
    const fn = `${node.callFrame.functionName || '(anonymous)'} ${where}:${node.callFrame.lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + node.hitCount);
    byFile.set(where, (byFile.get(where) ?? 0) + node.hitCount);
  }
  const top = (map: Map<string, number>, n: number) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`).join('\n');
  return `\nself time by file:\n${top(byFile, 25)}\n\nself time by function:\n${top(byFunction, 30)}`;
}
