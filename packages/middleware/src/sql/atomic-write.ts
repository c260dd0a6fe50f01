import { rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createExclusive, syncDirectory, unpredictableSibling } from './durable-files.js';

/**
 * Replaces a file so that a crash at any moment leaves either the old or the new content, never a
 * mix: write a temporary file beside it, fsync it, rename it over the target, fsync the directory.
 * The temporary name is unpredictable and created with O_EXCL | O_NOFOLLOW and mode 0600, so a file or
 * symlink planted there is never followed or overwritten.
 *
 * @example
 * await writeFileAtomic('data/pending.jsonl', bytes);
 */
export async function writeFileAtomic(file: string, bytes: Uint8Array): Promise<void> {
  const temporary = unpredictableSibling(file);
  const handle = await createExclusive(temporary);
  try {
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
  await syncDirectory(dirname(file));
}
