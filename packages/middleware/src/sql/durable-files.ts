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

/**
 * Writes every byte of `buffers` at `position`. A filling disk answers a write with fewer bytes than asked
 * (no error) before it answers ENOSPC: taking that for done would fsync and acknowledge a torn record, or
 * delete a segment whose pages only half reached the base. The rest is written again, so the real error
 * (ENOSPC, EIO) surfaces.
 */
export async function writeFully(handle: FileHandle, buffers: readonly Uint8Array[], position: number): Promise<void> {
  let pending = buffers;
  let at = position;
  while (pending.length > 0) {
    const { bytesWritten } = await handle.writev(pending as Uint8Array[], at);
    if (bytesWritten === 0) throw new Error(`no byte could be written at offset ${at}`);
    at += bytesWritten;
    pending = afterBytes(pending, bytesWritten);
  }
}

function afterBytes(buffers: readonly Uint8Array[], skipped: number): Uint8Array[] {
  const rest: Uint8Array[] = [];
  let left = skipped;
  for (const buffer of buffers) {
    if (left >= buffer.length) left -= buffer.length;
    else {
      rest.push(left > 0 ? buffer.subarray(left) : buffer);
      left = 0;
    }
  }
  return rest;
}
