import { resolve } from 'node:path';
import type { ResolvedConfig } from './config-schema.js';

/**
 * Files two parts of one config would both write: two database names (or a database and the memory store) on
 * one file would each keep their own image and journal of the same bytes, and one's writes would be lost.
 * Paths resolve against `baseDir`, as the runtime resolves them, so `a.sqlite` and `./a.sqlite` are one file.
 *
 * @example
 * sharedFileProblems(config, process.cwd()) // ['sql.databases.b.file: /srv/a.sqlite is already the file of sql.databases.a.file; …']
 */
export function sharedFileProblems(config: ResolvedConfig, baseDir: string): string[] {
  const owners = new Map<string, string>();
  const problems: string[] = [];
  const claim = (field: string, file: string | undefined) => {
    if (file === undefined) return;
    const path = resolve(baseDir, file);
    const first = owners.get(path);
    if (first !== undefined) problems.push(`${field}: ${path} is already the file of ${first}; each database and the store keep a file of their own`);
    else owners.set(path, field);
  };
  if (config.store.kind === 'memory') claim('store.file', config.store.file);
  for (const [name, db] of Object.entries(config.sql.databases)) if (db.kind !== 'postgres') claim(`sql.databases.${name}.file`, db.file);
  return problems;
}
