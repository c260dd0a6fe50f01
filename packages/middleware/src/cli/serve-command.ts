import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvalidArgumentError, Option, type Command } from 'commander';
import connect from 'connect';
import { readConfigFile, type ConfigInput } from '../config/index.js';
import { ServiceError } from '../errors/index.js';
import { jsonLogger, prettyLogger } from '../observe/index.js';
import { tollgate } from '../tollgate.js';
import { embeddedConfig } from './embedded-config.js';

const loggers = { json: jsonLogger, pretty: prettyLogger } as const;

/** `tollgate serve`: the middleware mounted in a connect app, the way a user's own server would mount it. */
export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('serve Tollgate over HTTP (the embedded default when no config file is given)')
    .option('-c, --config <file>', 'JSON config file')
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('-p, --port <port>', 'port to listen on', portArgument, 8787)
    .option('--data <dir>', 'directory of the embedded default', 'data')
    .addOption(new Option('--log-format <format>', 'operational and access log lines: JSON lines (pino) or human-readable').choices(['json', 'pretty']).default('pretty'))
    .action(async (options: { config?: string; host: string; port: number; data: string; logFormat: 'json' | 'pretty' }) => {
      let config: ConfigInput;
      let devKey: string | undefined;
      let devKeyCreated = false;
      // Parsed once, by tollgate(): see readConfigFile.
      if (options.config) config = readConfigFile(options.config);
      else ({ config, devKey, devKeyCreated } = embeddedConfig(options.data));
      const logger = loggers[options.logFormat]();
      const gate = tollgate(config, { logger });
      await gate.ready().catch((error: unknown) => {
        // A database that cannot load answers 503 database_unavailable and retries by itself: one broken
        // database must not keep the others (and the model endpoints) from serving.
        if (!(error instanceof ServiceError && error.code === 'database_unavailable')) throw error;
        logger.error(`Warning: ${error.message}`);
      });
      const app = connect();
      app.use(gate);
      const server = createServer(app);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(options.port, options.host, () => {
          server.off('error', reject);
          resolve();
        });
      }).catch(async (error: NodeJS.ErrnoException) => {
        await gate.close();
        const why = error.code === 'EADDRINUSE' ? 'is in use by another process' : error.code === 'EACCES' ? 'needs privileges this process lacks' : `failed (${error.message})`;
        throw new StartError(`Cannot listen on ${options.host}:${options.port}: the address ${why}`);
      });
      const { port } = server.address() as AddressInfo;
      const base = `http://${options.host}:${port}`;
      logger.info(`Tollgate listening on ${base}`);
      // The key is printed once, when it is made; afterwards only where it is kept (logs outlive terminals).
      if (devKey && devKeyCreated) {
        console.log(`Development key (kept in ${options.data}/dev-key, shown only now): ${devKey}`);
        console.log(`Try: curl -s ${base}/api/sql/query -H 'Authorization: Bearer ${devKey}' -H 'content-type: application/json' -d '{"query":"SELECT sqlite_version() AS version"}'`);
      } else if (devKey) {
        console.log(`Development key: in ${options.data}/dev-key`);
        console.log(`Try: curl -s ${base}/api/sql/query -H "Authorization: Bearer $(cat ${options.data}/dev-key)" -H 'content-type: application/json' -d '{"query":"SELECT sqlite_version() AS version"}'`);
      }
      const shutdown = () => {
        server.close();
        server.closeIdleConnections();
        void gate.close().then(() => process.exit(0));
      };
      process.once('SIGINT', shutdown);
      process.once('SIGTERM', shutdown);
    });
}

/** A start-up failure of the environment (a port in use): one message, no stack trace. */
export class StartError extends Error {
  override readonly name = 'StartError';
}

function portArgument(value: string): number {
  const port = Number(value);
  if (!/^\d{1,5}$/.test(value) || port > 65_535) throw new InvalidArgumentError('a port is a whole number from 0 to 65535.');
  return port;
}
