import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { open, readdir, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { PRIVATE_FILE_MODE, syncDirectory } from './private-files.js';

/**
 * Replaces a file so that a crash (SIGKILL, power loss) at any moment leaves either the old or the new
 * content, never a mix: write a temporary file beside it, fsync it, rename it over the target, fsync the
 * directory. The temporary name is unpredictable and created with O_EXCL | O_NOFOLLOW and mode 0600, so a
 * file or symlink planted there is never followed or overwritten. One function for the package: the SQL
 * journal's checkpoints, the memory store's snapshot and the Redis store's pending file.
 *
 * @example
 * await writeFileAtomic('data/state.json', JSON.stringify(snapshot));
 */
export async function writeFileAtomic(file: string, content: string | Uint8Array): Promise<void> {
  const temporary = unpredictableSibling(file);
  const handle = await createExclusive(temporary);
  try {
    try {
      await handle.writeFile(content);
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

/** Removes what `writeFileAtomic(file, …)` left behind when killed before its rename. */
export async function removeTemporaryFiles(file: string): Promise<void> {
  const prefix = temporaryPrefix(file);
  const names = await readdir(dirname(file)).catch(() => [] as string[]);
  await Promise.all(names.filter((name) => name.startsWith(prefix) && name.endsWith('.tmp')).map((name) => unlink(join(dirname(file), name)).catch(() => undefined)));
}

/**
 * Creates a new file that no one else could have prepared: O_EXCL (an existing name, a planted symlink
 * included, fails instead of being followed or overwritten), O_NOFOLLOW, owner-only permissions.
 *
 * @example
 * const handle = await createExclusive('data/main.sqlite-tgj.0000000000000001');
 */
export function createExclusive(file: string): Promise<FileHandle> {
  return open(file, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, PRIVATE_FILE_MODE);
}

/** A temporary name beside `file` that cannot be guessed: 128 random bits. */
export function unpredictableSibling(file: string): string {
  return join(dirname(file), `${temporaryPrefix(file)}${randomBytes(16).toString('hex')}.tmp`);
}

function temporaryPrefix(file: string): string {
  return `.${basename(file)}.`;
}
