import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The recorded provider responses in ../shared/fixtures/recorded (ground truth for wire formats). */
export const recordedDir = fileURLToPath(new URL('../../../shared/fixtures/recorded/', import.meta.url));

/** A recorded stream: one SSE data payload per line. */
export function recordedChunks(name: string): string[] {
  return readFileSync(`${recordedDir}${name}.chunks.txt`, 'utf8').split('\n').filter((line) => line.trim() !== '');
}

export function recordedJson<T = unknown>(name: string): T {
  return JSON.parse(readFileSync(`${recordedDir}${name}.json`, 'utf8')) as T;
}
