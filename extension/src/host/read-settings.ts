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

/** Where the chosen database is kept: the workspace's state, not its settings file (issue 18 #6). */
let chosenStore: { get(key: string): unknown; update(key: string, value: unknown): Thenable<void> } | undefined;
const CHOSEN_KEY = 'tollgate.currentDatabase';

export function keepCurrentDatabaseIn(store: NonNullable<typeof chosenStore>): void {
  chosenStore = store;
}

export async function chooseDatabase(name: string): Promise<void> {
  await chosenStore?.update(CHOSEN_KEY, name);
}

/**
 * The database SQL runs against: the one chosen in this workspace if it is still configured, else the
 * `tollgate.currentDatabase` setting (older workspaces), else the first.
 */
export function currentDatabase(): string {
  const config = vscode.workspace.getConfiguration('tollgate');
  const databases = Object.keys(withScratch(config.get<Record<string, string>>('databases') ?? {}));
  const chosen = [chosenStore?.get(CHOSEN_KEY), config.get<string>('currentDatabase')].find((name): name is string => typeof name === 'string' && databases.includes(name));
  return chosen ?? databases[0]!;
}
