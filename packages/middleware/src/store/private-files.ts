import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readdir, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, syncDirectory } from '../files/index.js';

/** Store files hold balances, key hashes and who spent what: readable by their owner only (files/ decides the modes). */
export { PRIVATE_FILE_MODE, syncDirectory };

/**
 * Creates a directory (and missing parents) readable by its owner only. An existing directory keeps its
 * mode unless `own` says the store owns it (its ledger directory), since a parent may be the user's cwd.
 */
export async function ensurePrivateDirectory(dir: string, own = false): Promise<void> {
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (own) await chmod(dir, PRIVATE_DIR_MODE);
}

/**
 * Replaces a file so that a SIGKILL or power loss at any moment leaves the old or the new content, never a
 * mix: a temporary file beside it, created exclusively (O_EXCL) under an unpredictable name — so nothing
 * else can have it open or have planted it as a link — written, fsynced, renamed over the target, and the
 * directory fsynced. A temporary file left by a kill is removed by `removeTemporaryFiles`.
 *
 * @example
 * await replaceFileAtomically('data/state.json', JSON.stringify(snapshot));
 */
export async function replaceFileAtomically(file: string, content: string | Uint8Array): Promise<void> {
  const temporary = join(dirname(file), `${temporaryPrefix(file)}${randomBytes(12).toString('hex')}.tmp`);
  const handle = await open(temporary, 'wx', PRIVATE_FILE_MODE);
  try {
    await handle.writeFile(content);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
  await handle.close();
  await rename(temporary, file);
  await syncDirectory(dirname(file));
}

/** Removes what `replaceFileAtomically(file, …)` left behind when killed before its rename. */
export async function removeTemporaryFiles(file: string): Promise<void> {
  const prefix = temporaryPrefix(file);
  const names = await readdir(dirname(file)).catch(() => [] as string[]);
  await Promise.all(names.filter((name) => name.startsWith(prefix) && name.endsWith('.tmp')).map((name) => unlink(join(dirname(file), name)).catch(() => undefined)));
}

function temporaryPrefix(file: string): string {
  return `.${basename(file)}.`;
}
