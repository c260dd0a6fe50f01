import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { isTruncate } from './page-op.js';
import { writeFully } from './durable-files.js';
import type { PageSet } from './page-set.js';

/** Adjacent pages go to the base in one writev of at most this many buffers. */
const MAX_RUN = 512;

/**
 * Writes journaled pages into the base file in place, in order (adjacent pages coalesced), sets its final
 * size and fsyncs it. Only after that may the segments they came from be deleted. A crash in the middle
 * is harmless: the segments are still there and recovery replays them over whatever part was written.
 *
 * @example
 * await checkpointInto('data/main.sqlite', segmentPages);
 */
export async function checkpointInto(file: string, pages: PageSet, afterEachWrite: () => void = () => undefined): Promise<void> {
  const base = await open(file, constants.O_RDWR | constants.O_CREAT, 0o600);
  try {
    let run: Uint8Array[] = [];
    let runStart = 0;
    let runEnd = 0;
    const flush = async () => {
      if (run.length === 0) return;
      await writeFully(base, run, runStart);
      run = [];
      afterEachWrite();
    };
    for (const op of pages.ops()) {
      if (isTruncate(op)) {
        await flush();
        await base.truncate(op.truncate);
        afterEachWrite();
        continue;
      }
      if (run.length > 0 && (op.offset !== runEnd || run.length >= MAX_RUN)) await flush();
      if (run.length === 0) runStart = runEnd = op.offset;
      run.push(op.data);
      runEnd += op.data.byteLength;
    }
    await flush();
    if (pages.sizeAfter >= 0) await base.truncate(pages.sizeAfter);
    await base.sync();
  } finally {
    await base.close();
  }
}
