import { open } from 'node:fs/promises';
import { StoreDamagedError } from './store-snapshot.js';

/** The records of the complete lines read so far, and how many bytes those lines take from the file's start. */
export interface JsonLinesChunk {
  records: unknown[];
  /** Bytes of complete (newline-terminated) lines up to and including this chunk. */
  completeBytes: number;
}

const NEWLINE = 0x0a;

/**
 * Streams a JSON-lines file in chunks of parsed records, never holding more than a chunk and one line in
 * memory, so a file larger than the largest JavaScript string (~512 MiB) reads like any other. An
 * unterminated last line — an append torn by a crash, never acknowledged — is not yielded; the last
 * chunk's `completeBytes` says where the complete lines end. A complete line that is not JSON is damage,
 * not a crash: it throws, naming the file and line.
 *
 * @example
 * for await (const { records } of jsonLineChunks('data/state.json')) for (const r of records) replay(r);
 */
export async function* jsonLineChunks(file: string, chunkBytes = 1 << 20): AsyncGenerator<JsonLinesChunk> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.allocUnsafe(chunkBytes);
    let carry: Buffer | undefined;
    let completeBytes = 0;
    let line = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, chunkBytes, null);
      if (bytesRead === 0) return;
      const data = carry ? Buffer.concat([carry, buffer.subarray(0, bytesRead)]) : buffer.subarray(0, bytesRead);
      const records: unknown[] = [];
      let start = 0;
      for (let end = data.indexOf(NEWLINE, start); end !== -1; end = data.indexOf(NEWLINE, start)) {
        line++;
        if (end > start) records.push(parseLine(data.toString('utf8', start, end), file, line));
        start = end + 1;
      }
      completeBytes += start;
      // Copied: `buffer` is reused by the next read.
      carry = start < data.length ? Buffer.from(data.subarray(start)) : undefined;
      yield { records, completeBytes };
    }
  } finally {
    await handle.close();
  }
}

/**
 * Reads a whole JSON-lines file through `onRecords`, chunk by chunk; answers where its complete lines end
 * (`completeBytes`) and its size, so a caller can cut a torn last line off before appending after it.
 */
export async function readJsonLines(file: string, onRecords: (records: unknown[]) => void): Promise<{ completeBytes: number; size: number }> {
  let completeBytes = 0;
  const handle = await open(file, 'r');
  const { size } = await handle.stat().finally(() => handle.close());
  for await (const chunk of jsonLineChunks(file)) {
    onRecords(chunk.records);
    completeBytes = chunk.completeBytes;
  }
  return { completeBytes, size: Math.max(size, completeBytes) };
}

function parseLine(text: string, file: string, line: number): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new StoreDamagedError(`${file}: line ${line} is not JSON (${JSON.stringify(text.slice(0, 80))}); the file is damaged`);
  }
}
