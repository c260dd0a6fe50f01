import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** One definition for the whole package (files/). */
export { syncDirectory } from '../files/index.js';

/**
 * Creates a new file that no one else could have prepared: O_EXCL (an existing name, a planted symlink
 * included, fails instead of being followed or overwritten), O_NOFOLLOW, owner-only permissions.
 *
 * @example
 * const handle = await createExclusive('data/main.sqlite-tgj.0000000000000001');
 */
export function createExclusive(file: string): Promise<FileHandle> {
  return open(file, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
}

/** A temporary name beside `file` that cannot be guessed: 128 random bits. */
export function unpredictableSibling(file: string): string {
  return join(dirname(file), `.${basename(file)}.${randomBytes(16).toString('hex')}.tmp`);
}
