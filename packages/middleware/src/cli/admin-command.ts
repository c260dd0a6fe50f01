import type { Command } from 'commander';
import { KeyRing } from '../auth/index.js';
import { parseConfig, readConfigFile, type ConfigInput } from '../config/index.js';
import { ServiceError } from '../errors/index.js';
import type { AdminOperations } from '../policy/index.js';
import { createPolicy } from '../store/index.js';
import { systemClock } from '../runtime-clock.js';
import { embeddedConfig } from './embedded-config.js';
import { registerLedgerCommand } from './ledger-command.js';
import { existingDataDirectory, existingStoreFileDirectory } from './store-directory.js';

/**
 * `tollgate admin …`: the operations of `gate.admin`, against the configured store. With a memory store
 * whose file a server holds, the operation is forwarded to that server over its admin channel, so it
 * changes the server's state at once (a revoked key is refused by the very next request); with no server,
 * the command holds the store itself for the moment of the operation. With Redis they take effect on
 * every instance at once.
 */
export function registerAdminCommand(program: Command): void {
  const admin = program.command('admin').description('manage balances, payment methods and keys').option('-c, --config <file>', 'JSON config file').option('--data <dir>', 'directory of the embedded default', 'data');

  const run = (operation: (ops: AdminOperations) => Promise<unknown>) => async () => {
    const { config: file, data } = admin.opts<{ config?: string; data: string }>();
    // Checked before the embedded default is made: making it writes a data directory and a development key.
    const { config } = parseConfig(withoutPendingFile(file ? readConfigFile(file) : embeddedConfig(existingDataDirectory(data, 'nothing was changed')).config));
    // A memory store without a file lives only inside the process that serves it: nothing here could reach or keep it.
    if (config.store.kind === 'memory') {
      if (!config.store.file) {
        throw new ServiceError('invalid_request', 'tollgate admin works on a store kept outside the server: a memory store with a file (store.file) or Redis; this config\'s memory store lives only in the serving process (use gate.admin there). Nothing was changed');
      }
      existingStoreFileDirectory(config.store.file, 'nothing was changed');
    }
    const { policy, admin: operations } = await createPolicy({ config, keys: KeyRing.fromConfig(config.keys), clock: systemClock, baseDir: process.cwd(), logger: { error: (m, e) => console.error(m, e) }, role: 'admin' });
    try {
      const result = await operation(operations);
      if (result !== undefined) console.log(JSON.stringify(result, null, 2));
    } finally {
      await policy.close();
    }
  };

  admin.command('topup <org> <usd>').description('add USD credit to an organization\'s wallet').action((org: string, usd: string) => run((ops) => ops.topUp(org, usdArgument(usd)))());
  admin
    .command('payment-method <org> <state>')
    .description('record whether the organization has a payment method (on|off)')
    .action((org: string, state: string) => run((ops) => ops.setPaymentMethod(org, onOff(state)))());
  const keys = admin.command('keys').description('create or revoke API keys');
  keys
    .command('create <org>')
    .option('--scopes <scopes>', 'comma-separated: models, sql, sql:read', 'models,sql')
    .action((org: string, options: { scopes: string }) => run((ops) => ops.createKey(org, options.scopes.split(',') as ('models' | 'sql' | 'sql:read')[]))());
  keys.command('revoke <keyOrId>').action((keyOrId: string) =>
    run(async (ops) => {
      // A script's `revoke "$LEAKED" && …` must not read "done" when the key (a typo, an unknown id) was not found.
      if (!(await ops.revokeKey(keyOrId))) throw new ServiceError('invalid_request', 'No key matches this key, SHA-256 or key id: nothing was revoked');
      return { revoked: true };
    })(),
  );
  admin.command('usage <org>').description('balances and totals of an organization').action((org: string) => run((ops) => ops.usage(org))());
  registerLedgerCommand(admin);
}

/** A decimal amount of USD as typed (`12`, `0.5`); anything else (`1e308`, `0x10`, `ten`) is refused. */
function usdArgument(text: string): number {
  if (!/^\d{1,10}(\.\d{1,6})?$/.test(text)) throw new ServiceError('invalid_request', `A top-up is a positive amount of USD such as 12 or 0.5, with at most 6 decimals (got "${text.slice(0, 40)}")`);
  return Number(text);
}

function onOff(state: string): boolean {
  if (state !== 'on' && state !== 'off') throw new ServiceError('invalid_request', `A payment method is "on" or "off" (got "${state.slice(0, 40)}")`);
  return state === 'on';
}

/**
 * Admin operations settle nothing, and a Redis store's pending file belongs to the server that uses it:
 * opening it here would rewrite it under that server. Nor do they export the ledger (the servers do).
 */
function withoutPendingFile(config: ConfigInput): ConfigInput {
  if (config.store?.kind !== 'redis') return config;
  const { pendingFile: _serversOwn, ...store } = config.store;
  return { ...config, store: { ...store, ledger: false } };
}
