import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { chmod, mkdir, open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Everything Tollgate writes under its data directory holds balances, key hashes, ledgers or secrets:
 * readable by its owner only. One place decides the modes, so every writer agrees.
 */
export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

/** Creates a directory (and missing parents) 0700; an existing directory is left as its owner set it. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/**
 * Creates a directory (and missing parents) 0700 without blocking. An existing directory keeps its mode
 * unless `own` says Tollgate owns it (a ledger directory), since a parent may be the user's cwd.
 */
export async function ensurePrivateDirectory(dir: string, own = false): Promise<void> {
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (own) await chmod(dir, PRIVATE_DIR_MODE);
}

/**
 * Opens a data file, created 0600. A file an earlier version created with wider rights is narrowed:
 * it holds the same data.
 *
 * @example
 * const handle = await openPrivate('data/state.json', 'a');
 */
export async function openPrivate(file: string, flags: string): Promise<FileHandle> {
  const handle = await open(file, flags, PRIVATE_FILE_MODE);
  try {
    const { mode } = await handle.stat();
    if ((mode & 0o077) !== 0) await handle.chmod(PRIVATE_FILE_MODE);
  } catch (error) {
    await handle.close();
    throw error;
  }
  return handle;
}

/** Writes a small file whole, 0600 (the mode of `writeFileSync` applies only to a file it creates). */
export function writePrivateFileSync(file: string, text: string, flag: 'w' | 'wx' = 'w'): void {
  writeFileSync(file, text, { mode: PRIVATE_FILE_MODE, flag });
  chmodSync(file, PRIVATE_FILE_MODE);
}

/**
 * A secret of this installation, kept in a 0600 file: read if it exists, else made once (32 random
 * bytes, hex). Two processes making it at once agree: the second one's exclusive create fails and it
 * reads the first one's.
 *
 * @example
 * const secret = installationSecret('data/state.json.key-id-secret');
 */
export function installationSecret(file: string): string {
  const existing = readSecret(file);
  if (existing) return existing;
  ensurePrivateDir(dirname(file));
  try {
    writePrivateFileSync(file, `${randomBytes(32).toString('hex')}\n`, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const made = readSecret(file);
  if (!made) throw new Error(`${file} holds no usable secret (expected 64 hex digits); remove it to make a new one`);
  return made;
}

function readSecret(file: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return /^[0-9a-f]{64}$/.test(text) ? text : undefined;
}

/** Makes a directory's entries (a created, renamed or removed name) survive a crash: fsync of the directory itself. */
export async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
