import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Real provider responses recorded by the Vercel AI SDK project (Apache-2.0; see fixtures/recorded/README.md). */
export const recordedDir = fileURLToPath(new URL('../fixtures/recorded/', import.meta.url));

/** A recorded stream: one SSE data payload per line. */
export function recordedChunks(name: string): string[] {
  return readFileSync(`${recordedDir}${name}.chunks.txt`, 'utf8').split('\n').filter((line) => line.trim() !== '');
}

export function recordedJson<T = unknown>(name: string): T {
  return JSON.parse(readFileSync(`${recordedDir}${name}.json`, 'utf8')) as T;
}
