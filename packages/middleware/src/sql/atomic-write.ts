import { open, rename } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { openPrivate } from '../files/index.js';

/**
 * Replaces a file so that a crash at any moment leaves either the old or the new content, never a
 * mix: write a temporary file beside it, fsync it, rename it over the target, fsync the directory.
 * The temporary file is created 0600, so the file it becomes is private too.
 *
 * @example
 * await writeFileAtomic('data/main.sqlite', bytes);
 */
export async function writeFileAtomic(file: string, bytes: Uint8Array): Promise<void> {
  const temporary = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);
  const handle = await openPrivate(temporary, 'w');
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, file);
  const directory = await open(dirname(file), 'r');
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}
