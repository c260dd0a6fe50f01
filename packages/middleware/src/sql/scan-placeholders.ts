/** What one statement takes: how many positional values, and whether named ones. */
export interface Placeholders {
  positional: number;
  named: boolean;
  /** Each distinct named placeholder as written (`:name`, `@name`, `$name`), in order. */
  names: string[];
}

/**
 * Counts the positional placeholders (`?`, `?NNN`) of one SQL statement and tells whether it has named
 * ones (`:name`, `@name`, `$name`), skipping string literals, quoted identifiers and comments — sql.js
 * offers no parameter count, and binding values a statement does not take is an error.
 *
 * @example
 * scanPlaceholders("SELECT '?' , ? , :name -- ?") // { positional: 1, named: true, names: [':name'] }
 */
export function scanPlaceholders(sql: string): Placeholders {
  // The array's values fill SQLite's parameter slots 1…n in order. SQLite numbers a bare `?` one past the
  // highest slot so far, `?NNN` takes slot NNN, and each distinct name takes the next slot when first seen:
  // counting `?` tokens instead bound `SELECT ?2, ?` with [5, 6] as (6, NULL) and refused `SELECT ?1, ?1` with [5].
  let slots = 0;
  let question = false;
  let named = false;
  const names = new Set<string>();
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
      question = true;
      const start = ++i;
      while (i < sql.length && /[0-9]/.test(sql[i]!)) i++;
      slots = i > start ? Math.max(slots, Number(sql.slice(start, i))) : slots + 1;
    } else if ((c === ':' || c === '@' || c === '$') && /[A-Za-z_]/.test(sql[i + 1] ?? '')) {
      named = true;
      const start = i;
      i += 2;
      while (i < sql.length && /[A-Za-z0-9_$\u0080-\uffff]/.test(sql[i]!)) i++;
      const name = sql.slice(start, i);
      if (!names.has(name)) {
        names.add(name);
        slots++;
      }
    } else {
      i++;
    }
  }
  return { positional: question ? slots : 0, named, names: [...names] };
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
