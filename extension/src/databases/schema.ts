import type { TollgateClient } from '@tollgate/client';

export interface ColumnSchema {
  name: string;
  type: string;
}

export interface TableSchema {
  name: string;
  kind: 'table' | 'view';
  columns: ColumnSchema[];
}

/** One read of every table's and view's columns (SQLite's own catalog; pragma_table_info only reads). */
export const SCHEMA_SQL =
  "SELECT m.name AS tbl, m.type AS kind, p.name AS col, p.type AS coltype FROM sqlite_master AS m JOIN pragma_table_info(m.name) AS p WHERE m.type IN ('table', 'view') AND m.name NOT LIKE 'sqlite_%' ORDER BY m.name, p.cid";

export async function readSchema(client: TollgateClient, db: string): Promise<TableSchema[]> {
  const result = await client.sql(SCHEMA_SQL, { db });
  return result.type === 'table' ? groupSchema(result.data as [string, string, string, string][]) : [];
}

/** @example groupSchema([['t', 'table', 'x', 'INTEGER']]) // [{ name: 't', kind: 'table', columns: [{ name: 'x', type: 'INTEGER' }] }] */
export function groupSchema(rows: readonly (readonly [string, string, string, string])[]): TableSchema[] {
  const tables = new Map<string, TableSchema>();
  for (const [table, kind, column, type] of rows) {
    let entry = tables.get(table);
    if (!entry) tables.set(table, (entry = { name: table, kind: kind === 'view' ? 'view' : 'table', columns: [] }));
    entry.columns.push({ name: column, type });
  }
  return [...tables.values()];
}
