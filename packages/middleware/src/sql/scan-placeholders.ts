/** What one statement takes: how many positional values, and whether named ones. */
export interface Placeholders {
  positional: number;
  named: boolean;
}

/**
 * Counts the positional placeholders (`?`, `?NNN`) of one SQL statement and tells whether it has named
 * ones (`:name`, `@name`, `$name`), skipping string literals, quoted identifiers and comments — sql.js
 * offers no parameter count, and binding values a statement does not take is an error.
 *
 * @example
 * scanPlaceholders("SELECT '?' , ? , :name -- ?") // { positional: 1, named: true }
 */
export function scanPlaceholders(sql: string): Placeholders {
  let positional = 0;
  let named = false;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (c === "'" || c === '"' || c === '`') {
      i = skipQuoted(sql, i, c);
    } else if (c === '[') {
      i = sql.indexOf(']', i + 1) + 1 || sql.length;
    } else if (c === '-' && sql[i + 1] === '-') {
      i = sql.indexOf('\n', i) + 1 || sql.length;
    } else if (c === '/' && sql[i + 1] === '*') {
      // An unterminated comment runs to the end (as SQLite reads it); `indexOf(…) + 2 || length` went back to 1 and looped.
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 2;
    } else if (c === '?') {
      positional++;
      i++;
      while (i < sql.length && /[0-9]/.test(sql[i]!)) i++;
    } else if ((c === ':' || c === '@' || c === '$') && /[A-Za-z_]/.test(sql[i + 1] ?? '')) {
      named = true;
      i += 2;
    } else {
      i++;
    }
  }
  return { positional, named };
}

export function skipQuoted(sql: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === quote) {
      if (sql[i + 1] === quote) i += 2; // doubled quote escapes itself
      else return i + 1;
    } else i++;
  }
  return sql.length;
}
