import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConfigInput } from '../config/index.js';
import { generateKey, hashKey } from '../auth/index.js';

/**
 * The embedded default of `tollgate serve` without a config file: a file-backed SQLite database and a
 * durable memory store under `./data`, the default model catalog (providers from the usual environment
 * variables), one local organization with USD 10 of credit, and a development key kept in
 * `./data/dev-key` so that restarts keep it.
 */
export function embeddedConfig(dataDir: string): { config: ConfigInput; devKey: string } {
  mkdirSync(dataDir, { recursive: true });
  const keyFile = join(dataDir, 'dev-key');
  let devKey = existsSync(keyFile) ? readFileSync(keyFile, 'utf8').trim() : '';
  if (!devKey) {
    devKey = generateKey();
    writeFileSync(keyFile, `${devKey}\n`, { mode: 0o600 });
    chmodSync(keyFile, 0o600);
  }
  return {
    devKey,
    config: {
      keys: [{ sha256: hashKey(devKey), org: 'local', id: 'dev-key', scopes: ['models', 'sql'] }],
      organizations: { local: { wallet: 10 } },
      store: { kind: 'memory', file: join(dataDir, 'state.json') },
      // Its one organization is granted its database, as every database should be (README "Databases and organizations").
      sql: { databases: { main: { file: join(dataDir, 'main.sqlite'), access: { local: 'write' } } }, default: 'main' },
    },
  };
}
