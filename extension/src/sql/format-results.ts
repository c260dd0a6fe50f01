/** A table result as the SQL endpoint returns it (contract §2.2). */
export interface TableResult {
  column_names: string[];
  data: unknown[][];
}

/**
 * How a cell reads in the grid and in exports. NULL stays distinguishable from the text 'NULL' in the
 * grid (the view styles `null` itself); integers beyond 2^53 arrive as strings and stay exact.
 */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** RFC 4180: fields with a comma, quote or line break are quoted, quotes doubled; NULL is an empty field, '' a quoted one. */
export function toCsv(table: TableResult): string {
  const field = (value: unknown) => {
    if (value === null || value === undefined) return '';
    const text = cellText(value);
    // An empty string is a quoted empty field, so it stays apart from NULL (PostgreSQL's COPY … CSV reads it so).
    return text === '' || /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return [table.column_names, ...table.data].map((row) => row.map(field).join(',')).join('\r\n') + '\r\n';
}

/** An array of row objects keyed by column name; a repeated column name gets a `_2`, `_3` suffix. */
export function toJson(table: TableResult): string {
  const keys = uniqueNames(table.column_names);
  return JSON.stringify(table.data.map((row) => Object.fromEntries(keys.map((key, i) => [key, row[i] ?? null]))), null, 2) + '\n';
}

/** A GitHub-flavoured Markdown table; pipes and line breaks inside cells are escaped. */
export function toMarkdown(table: TableResult): string {
  const cell = (value: unknown) => cellText(value).replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, '<br>');
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(table.column_names.map(cell)), line(table.column_names.map(() => '---')), ...table.data.map((row) => line(row.map(cell)))].join('\n') + '\n';
}

export const exportFormats = { csv: toCsv, json: toJson, markdown: toMarkdown } as const;
export type ExportFormat = keyof typeof exportFormats;

function uniqueNames(names: string[]): string[] {
  const seen = new Map<string, number>();
  return names.map((name) => {
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    return n === 1 ? name : `${name}_${n}`;
  });
}
