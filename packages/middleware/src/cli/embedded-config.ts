import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConfigInput } from '../config/index.js';
import { generateKey, hashKey } from '../auth/index.js';
import { ensurePrivateDir, writePrivateFileSync } from '../files/index.js';

/** Requests the embedded default's organization may have in flight at once (README "Try it"). */
export const EMBEDDED_CONCURRENCY = 16;

/**
 * The embedded default of `tollgate serve` without a config file: a file-backed SQLite database and a
 * durable memory store under `./data`, the default model catalog (providers from the usual environment
 * variables), one local organization with USD 10 of credit and at most 16 requests in flight (so one
 * client cannot hold every upstream connection), and a development key kept in `./data/dev-key` (0600, in a
 * 0700 directory) so that restarts keep it. `devKeyCreated` says whether this call made the key: only then is
 * it shown (it stays readable in its file, not in every log).
 */
export function embeddedConfig(dataDir: string): { config: ConfigInput; devKey: string; devKeyCreated: boolean } {
  ensurePrivateDir(dataDir);
  const keyFile = join(dataDir, 'dev-key');
  let devKey = existsSync(keyFile) ? readFileSync(keyFile, 'utf8').trim() : '';
  const devKeyCreated = !devKey;
  if (devKeyCreated) {
    devKey = generateKey();
    writePrivateFileSync(keyFile, `${devKey}\n`);
  }
  return {
    devKey,
    devKeyCreated,
    config: {
      keys: [{ sha256: hashKey(devKey), org: 'local', id: 'dev-key', scopes: ['models', 'sql'] }],
      organizations: { local: { wallet: 10, limits: { concurrency: EMBEDDED_CONCURRENCY } } },
      store: { kind: 'memory', file: embeddedStoreFile(dataDir) },
      // Its one organization is granted its database, as every database should be (README "Databases and organizations").
      sql: { databases: { main: { file: join(dataDir, 'main.sqlite'), access: { local: 'write' } } }, default: 'main' },
    },
  };
}

/** The embedded default's memory store file in its data directory. */
export function embeddedStoreFile(dataDir: string): string {
  return join(dataDir, 'state.json');
}
