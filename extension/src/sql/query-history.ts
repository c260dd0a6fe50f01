import type * as vscode from 'vscode';

export interface HistoryEntry {
  sql: string;
  db: string;
  at: string;
  outcome: string;
}

const KEY = 'tollgate.queryHistory';
const LIMIT = 200;

/** The last runs of this workspace, newest first; a repeated query moves to the top instead of doubling. */
export class QueryHistory {
  constructor(private readonly state: vscode.Memento) {}

  entries(): HistoryEntry[] {
    return this.state.get<HistoryEntry[]>(KEY) ?? [];
  }

  async add(entry: HistoryEntry): Promise<void> {
    const rest = this.entries().filter((e) => e.sql !== entry.sql || e.db !== entry.db);
    await this.state.update(KEY, [entry, ...rest].slice(0, LIMIT));
  }
}
