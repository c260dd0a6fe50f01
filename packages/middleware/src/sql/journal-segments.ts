import { readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** One journal segment file: `<database file>-tgj.<first lsn, 16 digits>`. */
export interface JournalSegment {
  path: string;
  firstLsn: number;
}

/** The segment file that starts at `lsn`. */
export function segmentPath(file: string, lsn: number): string {
  return `${file}-tgj.${String(lsn).padStart(16, '0')}`;
}

/** The database's segments on disk, oldest first. */
export function listSegments(file: string): JournalSegment[] {
  const prefix = `${basename(file)}-tgj.`;
  let names: string[];
  try {
    names = readdirSync(dirname(file));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names
    .filter((name) => name.startsWith(prefix) && /^\d{16}$/.test(name.slice(prefix.length)))
    .map((name) => ({ path: join(dirname(file), name), firstLsn: Number(name.slice(prefix.length)) }))
    .sort((a, b) => a.firstLsn - b.firstLsn);
}
