import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKey, hashKey, tollgate, type Logger, type SqlAssets } from '@tollgate/middleware';
import { TollgateClient } from '@tollgate/client';
import { SESSION_ORG, hostConfig, type HostSettings, type StoredKey } from './host-config.js';

/** Tollgate running inside the extension host for one editor session. */
export interface SessionGateway {
  url: string;
  /** Follows the contract's retry rules; for SQL and model lists. */
  client: TollgateClient;
  /** No automatic retries: the chat view shows rate limits as a countdown and retries itself. */
  chatClient: TollgateClient;
  /** Providers whose stored key was not sent: it was stored for another origin than their settings name now. */
  withheldKeys: string[];
  /** What is left of the session budget, USD (the session organization's wallet). */
  walletUsd(): Promise<number>;
  close(): Promise<void>;
}

export interface SessionGatewayOptions {
  providerKeys: Record<string, StoredKey>;
  /** Relative database paths resolve against it: the first workspace folder. */
  baseDir: string;
  sqlAssets?: SqlAssets;
  logger: Logger;
  env?: NodeJS.ProcessEnv;
}

/**
 * Starts Tollgate on 127.0.0.1 at a random port with a key made for this session alone: another
 * local process can reach the port but not use it. Resolves once sql.js and the store are up.
 */
export async function startSessionGateway(settings: HostSettings, options: SessionGatewayOptions): Promise<SessionGateway> {
  const sessionKey = generateKey();
  const { config, env, withheldKeys } = hostConfig(settings, { providerKeys: options.providerKeys, sessionKeyHash: hashKey(sessionKey) }, options.env ?? process.env);
  const gate = tollgate(config, { env, baseDir: options.baseDir, logger: options.logger, ...(options.sqlAssets ? { sqlAssets: options.sqlAssets } : {}) });
  const server = createServer(gate);
  try {
    await gate.ready();
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  } catch (error) {
    await gate.close().catch(() => undefined);
    throw error;
  }
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    client: new TollgateClient({ baseUrl: url, apiKey: sessionKey }),
    chatClient: new TollgateClient({ baseUrl: url, apiKey: sessionKey, maxRetries: 0, messagesMaxRetries: 0 }),
    withheldKeys,
    walletUsd: async () => (await gate.admin.usage(SESSION_ORG)).wallet,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await gate.close();
    },
  };
}
