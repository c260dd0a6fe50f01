import type { FileHandle } from 'node:fs/promises';

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

/**
 * Appends every byte of `text` to a handle opened for appending, for the same reason as `writeFully`: a short
 * write taken for done would fsync and acknowledge a torn line.
 */
export async function appendFully(handle: FileHandle, text: string): Promise<void> {
  const bytes = Buffer.from(text);
  for (let done = 0; done < bytes.length; ) {
    const { bytesWritten } = await handle.write(bytes, done, bytes.length - done, null);
    if (bytesWritten === 0) throw new Error(`no byte could be appended after ${done} of ${bytes.length}`);
    done += bytesWritten;
  }
}
