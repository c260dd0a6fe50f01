import * as vscode from 'vscode';
import type { HostSettings } from './host-config.js';
import { withScratch } from './host-config.js';

/** The `tollgate.*` settings the in-process gateway is built from; changing any of them restarts it. */
export const gatewaySettingKeys = ['databases', 'providers', 'models', 'defaultCatalog', 'sessionBudgetUsd', 'limits', 'sql.timeoutMs', 'sql.maxRows'];

export function readSettings(): HostSettings {
  const config = vscode.workspace.getConfiguration('tollgate');
  return {
    databases: withScratch(config.get<Record<string, string>>('databases') ?? {}),
    providers: config.get('providers') ?? {},
    models: config.get('models') ?? {},
    defaultCatalog: config.get('defaultCatalog') ?? true,
    sessionBudgetUsd: config.get('sessionBudgetUsd') ?? 5,
    limits: config.get('limits') ?? {},
    sqlTimeoutMs: config.get('sql.timeoutMs') ?? 30_000,
    sqlMaxRows: config.get('sql.maxRows') ?? 100_000,
  };
}

/** The database SQL runs against: the chosen one if it is still configured, else the first. */
export function currentDatabase(): string {
  const config = vscode.workspace.getConfiguration('tollgate');
  const databases = Object.keys(withScratch(config.get<Record<string, string>>('databases') ?? {}));
  const chosen = config.get<string>('currentDatabase') ?? '';
  return databases.includes(chosen) ? chosen : databases[0]!;
}
