import type { Command } from 'commander';
import { loadConfigFile, type ConfigInput } from '../config/index.js';
import { tollgate } from '../tollgate.js';
import type { AdminOperations } from '../policy/index.js';
import { embeddedConfig } from './embedded-config.js';

/**
 * `tollgate admin …`: the operations of `gate.admin`, against the configured store. With the memory store
 * they change its journal file, so run them while no server uses that file (a running server reads it
 * only at start); with Redis they take effect on every instance at once.
 */
export function registerAdminCommand(program: Command): void {
  const admin = program.command('admin').description('manage balances, payment methods and keys').option('-c, --config <file>', 'JSON config file').option('--data <dir>', 'directory of the embedded default', 'data');

  const run = (operation: (ops: AdminOperations) => Promise<unknown>) => async () => {
    const { config: file, data } = admin.opts<{ config?: string; data: string }>();
    const config = withoutPendingFile(file ? loadConfigFile(file).config : embeddedConfig(data).config);
    const gate = tollgate(config, { logger: { info() {}, error: (m, e) => console.error(m, e) } });
    try {
      const result = await operation(gate.admin);
      if (result !== undefined) console.log(JSON.stringify(result, null, 2));
    } finally {
      await gate.close();
    }
  };

  admin.command('topup <org> <usd>').description('add USD credit to an organization\'s wallet').action((org: string, usd: string) => run((ops) => ops.topUp(org, Number(usd)))());
  admin
    .command('payment-method <org> <state>')
    .description('record whether the organization has a payment method (on|off)')
    .action((org: string, state: string) => run((ops) => ops.setPaymentMethod(org, state === 'on'))());
  const keys = admin.command('keys').description('create or revoke API keys');
  keys
    .command('create <org>')
    .option('--scopes <scopes>', 'comma-separated: models, sql, sql:read', 'models,sql')
    .action((org: string, options: { scopes: string }) => run((ops) => ops.createKey(org, options.scopes.split(',') as ('models' | 'sql' | 'sql:read')[]))());
  keys.command('revoke <keyOrId>').action((keyOrId: string) => run(async (ops) => ({ revoked: await ops.revokeKey(keyOrId) }))());
  admin.command('usage <org>').description('balances and totals of an organization').action((org: string) => run((ops) => ops.usage(org))());
}

/**
 * Admin operations settle nothing, and a Redis store's pending file belongs to the server that uses it:
 * opening it here would rewrite it under that server.
 */
function withoutPendingFile(config: ConfigInput): ConfigInput {
  if (config.store?.kind !== 'redis' || !('pendingFile' in config.store)) return config;
  const { pendingFile: _serversOwn, ...store } = config.store;
  return { ...config, store };
}
