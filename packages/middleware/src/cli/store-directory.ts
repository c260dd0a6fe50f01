import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ServiceError } from '../errors/index.js';

/**
 * The directory of the store `tollgate admin` works on, which must already be there: the command never
 * makes one. A directory that is missing means the path is wrong (a typo in `--data`, a relative
 * `store.file` read from another working directory than the server's), and a store made on the spot
 * would take a top-up the server never sees, with exit code 0 (README "Command line").
 *
 * @example
 * existingDataDirectory('data', 'nothing was changed') // 'data', or throws invalid_request naming /srv/data
 */
export function existingDataDirectory(dir: string, consequence: string): string {
  if (!existsSync(dir)) throw new ServiceError('invalid_request', `There is no Tollgate data directory at ${resolve(dir)} (--data): ${consequence}`);
  return dir;
}

/** The same for a config's memory store file: its directory must be there. */
export function existingStoreFileDirectory(file: string, consequence: string): void {
  const dir = dirname(resolve(file));
  if (!existsSync(dir)) throw new ServiceError('invalid_request', `There is no directory ${dir} for store.file "${file}" (a relative path is read from the working directory, ${process.cwd()}): ${consequence}`);
}
