import * as vscode from 'vscode';
import type { GatewayHost } from '../host/gateway-host.js';
import { MEMORY } from '../host/host-config.js';
import { currentDatabase, readSettings } from '../host/read-settings.js';
import { readSchema, type ColumnSchema, type TableSchema } from './schema.js';

type Node = { kind: 'database'; name: string; path: string } | { kind: 'table'; db: string; table: TableSchema } | { kind: 'column'; column: ColumnSchema } | { kind: 'message'; text: string };

/**
 * The "Databases" view of the Tollgate activity-bar container: each configured database, its tables and
 * views, their columns. Schemas are read through the gateway and cached until a run on that database.
 */
export class DatabasesView implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  readonly #changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.#changed.event;
  readonly #schemas = new Map<string, Promise<TableSchema[]>>();

  constructor(private readonly host: GatewayHost) {}

  /** The schema of `db` (cached), for the tree and for completion. */
  schema(db: string): Promise<TableSchema[]> {
    let schema = this.#schemas.get(db);
    if (!schema) {
      schema = this.host.gateway().then((gateway) => readSchema(gateway.client, db));
      schema.catch(() => this.#schemas.delete(db));
      this.#schemas.set(db, schema);
    }
    return schema;
  }

  /** A run or a settings change: forget `db`'s schema (or all) and redraw. */
  refresh(db?: string): void {
    if (db) this.#schemas.delete(db);
    else this.#schemas.clear();
    this.#changed.fire(undefined);
  }

  getTreeItem(node: Node): vscode.TreeItem {
    switch (node.kind) {
      case 'database': {
        const current = node.name === currentDatabase();
        const item = new vscode.TreeItem(node.name, vscode.TreeItemCollapsibleState.Collapsed);
        item.description = `${node.path === MEMORY || node.path === '' ? 'in memory' : node.path}${current ? ' · current' : ''}`;
        item.iconPath = new vscode.ThemeIcon(current ? 'database' : 'circle-outline');
        item.contextValue = 'database';
        item.tooltip = current ? 'SQL runs here' : 'Click "Use" to run SQL here';
        return item;
      }
      case 'table': {
        const item = new vscode.TreeItem(node.table.name, vscode.TreeItemCollapsibleState.Collapsed);
        item.description = node.table.kind === 'view' ? 'view' : `${node.table.columns.length} columns`;
        item.iconPath = new vscode.ThemeIcon(node.table.kind === 'view' ? 'eye' : 'table');
        item.contextValue = 'table';
        return item;
      }
      case 'column': {
        const item = new vscode.TreeItem(node.column.name, vscode.TreeItemCollapsibleState.None);
        item.description = node.column.type || 'any';
        item.iconPath = new vscode.ThemeIcon('symbol-field');
        return item;
      }
      case 'message':
        return new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
    }
  }

  async getChildren(node?: Node): Promise<Node[]> {
    if (!node) return Object.entries(readSettings().databases).map(([name, path]) => ({ kind: 'database', name, path }));
    if (node.kind === 'database') {
      try {
        const tables = await this.schema(node.name);
        return tables.length ? tables.map((table) => ({ kind: 'table', db: node.name, table })) : [{ kind: 'message', text: 'No tables yet' }];
      } catch (error) {
        return [{ kind: 'message', text: `Cannot read: ${(error as Error).message}` }];
      }
    }
    if (node.kind === 'table') return node.table.columns.map((column) => ({ kind: 'column', column }));
    return [];
  }

  dispose(): void {
    this.#changed.dispose();
  }
}

/** Table and column names of the current database as completions in `.sql` files. */
export function schemaCompletion(view: DatabasesView): vscode.CompletionItemProvider {
  return {
    async provideCompletionItems() {
      const tables = await view.schema(currentDatabase()).catch(() => [] as TableSchema[]);
      return tables.flatMap((table) => {
        const item = new vscode.CompletionItem({ label: table.name, description: table.kind }, vscode.CompletionItemKind.Struct);
        item.detail = `${table.kind} in ${currentDatabase()}: ${table.columns.map((column) => column.name).join(', ')}`;
        const columns = table.columns.map((column) => {
          const completion = new vscode.CompletionItem({ label: column.name, description: `${table.name}.${column.type || 'any'}` }, vscode.CompletionItemKind.Field);
          completion.detail = `${table.name}.${column.name} ${column.type}`;
          return completion;
        });
        return [item, ...columns];
      });
    },
  };
}
