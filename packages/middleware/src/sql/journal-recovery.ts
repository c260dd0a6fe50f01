import { open, readFile, type FileHandle } from 'node:fs/promises';
import { decodeSegment, type JournalRecord } from './journal-record.js';
import { listSegments, type JournalSegment } from './journal-segments.js';
import { PageImage } from './page-image.js';
import { PageSet } from './page-set.js';

/** What recovery found: the committed file, and what the journal added to the base. */
export interface RecoveredDatabase {
  /** Base + every valid journal record: the state of the last acknowledged commit (or one not yet acknowledged). */
  image: Uint8Array;
  /** The lsn the next record takes. */
  nextLsn: number;
  segments: JournalSegment[];
  /** Every operation of the journal, deduplicated: what a boot checkpoint writes into the base. */
  journaled: PageSet;
  records: number;
}

/**
 * Reads a database as it was last committed: the base file, then every segment's valid records in lsn
 * order, stopping at a torn tail. Throws rather than guess when a segment is missing from the sequence
 * or the final size disagrees with the last record. Reads only: the caller decides on a checkpoint.
 *
 * @example
 * const { image } = await recoverDatabase('data/main.sqlite');
 * new SQL.Database(image);
 */
export async function recoverDatabase(file: string): Promise<RecoveredDatabase> {
  const segments = listSegments(file);
  let expected = segments[0]?.firstLsn ?? 1;
  const decoded: JournalRecord[][] = [];
  let largest = 0;
  for (const segment of segments) {
    if (segment.firstLsn !== expected) throw new Error(`journal segment ${segment.path} does not follow lsn ${expected - 1}: a segment is missing, refusing to guess`);
    const { records, nextLsn } = decodeSegment(await readFile(segment.path), expected);
    for (const record of records) largest = Math.max(largest, record.sizeAfter);
    decoded.push(records);
    expected = nextLsn;
  }
  // The base is read into a buffer already as large as the journal makes the file: at 512 MiB, growing it
  // while replaying cost a second allocation and a copy of the whole image (README "Recovery time").
  const image = new PageImage(...(await readBase(file, largest)));
  const journaled = new PageSet();
  let records = 0;
  for (const record of decoded.flat()) {
    // No size check per record: after a checkpoint cut short, the base already holds a later state, so
    // sizes in between may differ. Replaying in order makes the end state right; only it is checked.
    image.apply(record.ops);
    journaled.addAll(record.ops, record.sizeAfter);
    records++;
  }
  if (records > 0 && image.size !== journaled.sizeAfter) throw new Error(`database file is ${image.size} bytes after replaying its journal, the last record says ${journaled.sizeAfter}`);
  return { image: image.bytes(), nextLsn: expected, segments, journaled, records };
}

/** The base file's bytes, in a buffer of at least `capacity` bytes (the rest is spare room for the replay). */
async function readBase(file: string, capacity: number): Promise<[Uint8Array, number]> {
  let handle: FileHandle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [new Uint8Array(0), 0];
    throw error;
  }
  try {
    const { size } = await handle.stat();
    const buffer = Buffer.allocUnsafeSlow(Math.max(size, capacity));
    for (let at = 0; at < size; ) {
      const { bytesRead } = await handle.read(buffer, at, size - at, at);
      if (bytesRead === 0) throw new Error(`${file} ended at ${at} bytes while it had ${size}`);
      at += bytesRead;
    }
    return [buffer.subarray(0, size), buffer.length];
  } finally {
    await handle.close();
  }
}
