import { RequestFailure } from './request-failure.js';
import { skipQuoted } from './scan-placeholders.js';
import type { SqlParams, SqlValue } from './sql-types.js';

/** One statement of a request, ready for PostgreSQL: its placeholders rewritten to `$1…$n`, and their values. */
export interface PostgresStatement {
  text: string;
  values: SqlValue[];
  /** Its first keyword, upper-cased ('' for none): the statement policy looks at it. */
  keyword: string;
  /** Where each of `values` comes from: an index into positional params, or a bare name of named params. */
  sources: (number | string)[];
}

/**
 * Splits a request into statements and rewrites Tollgate's placeholders to PostgreSQL's `$n`, with PostgreSQL's
 * lexical rules (contract: the query text is the engine's SQL): `'…'` and `E'…'` strings, `"…"` identifiers,
 * `$tag$…$tag$` bodies, `--` and nested `/* … *\/` comments are never looked into, and `::` is a cast. Only the
 * placeholder style the request's `params` uses is rewritten (`?` for an array; `:name`, `@name`, `$name` for an
 * object), so without params the text reaches PostgreSQL as written (jsonb's `?` operators keep working).
 * Positional values are consumed in order across statements, like the sql.js kind (scan-placeholders.ts).
 *
 * @example
 * splitPostgres("INSERT INTO t VALUES (?); SELECT '?', x::text FROM t WHERE id = ?", [1, 2])
 * // [{ text: 'INSERT INTO t VALUES ($1)', values: [1] }, { text: "SELECT '?', x::text FROM t WHERE id = $1", values: [2] }]
 */
export function splitPostgres(sql: string, params: SqlParams | undefined): PostgresStatement[] {
  // The wire protocol ends SQL text at a NUL: PostgreSQL refuses such a message as malformed and closes the
  // connection, which answered a retryable 503 database_unavailable and cost a pooled connection per request.
  if (sql.includes('\u0000')) throw new RequestFailure('The query contains a NUL character (U+0000), which PostgreSQL does not accept in SQL text', 'syntax_error');
  const positional = Array.isArray(params) ? params : undefined;
  const named = params && !Array.isArray(params) ? namedValues(params) : undefined;
  const statements: PostgresStatement[] = [];
  let used = 0;
  let text = '';
  let values: SqlValue[] = [];
  let sources: (number | string)[] = [];
  let slots = new Map<string, number>();
  let from = 0;
  let i = 0;
  const finish = (end: number) => {
    text += sql.slice(from, end);
    const keyword = firstKeyword(text);
    if (keyword !== '') statements.push({ text, values, keyword, sources });
    text = '';
    values = [];
    sources = [];
    slots = new Map();
  };
  while (i < sql.length) {
    const c = sql[i]!;
    if (c === "'") i = (sql[i - 1] === 'E' || sql[i - 1] === 'e') && !isWordChar(sql[i - 2]) ? skipEscapeString(sql, i) : skipQuoted(sql, i, c);
    else if (c === '"') i = skipQuoted(sql, i, c);
    else if (c === '-' && sql[i + 1] === '-') i = skipLineComment(sql, i);
    else if (c === '/' && sql[i + 1] === '*') i = skipNestedComment(sql, i);
    else if (c === ':' && sql[i + 1] === ':') i += 2;
    else if (c === '$' && dollarTag(sql, i) !== undefined && !isWordChar(sql[i - 1])) {
      const tag = dollarTag(sql, i)!;
      const end = sql.indexOf(tag, i + tag.length);
      i = end < 0 ? sql.length : end + tag.length;
    } else if (c === ';') {
      finish(i);
      from = i = i + 1;
    } else if (c === '?' && positional) {
      if (used >= positional.length) throw new RequestFailure(`The query has more ? placeholders than the ${positional.length} values in params`, 'parameter_mismatch');
      sources.push(used);
      values.push(positional[used++]!);
      text += `${sql.slice(from, i)}$${values.length}`;
      from = i = i + 1;
    } else if ((c === ':' || c === '@' || c === '$') && named && /[A-Za-z_]/.test(sql[i + 1] ?? '') && !isWordChar(sql[i - 1])) {
      let end = i + 1;
      while (end < sql.length && isWordChar(sql[end])) end++;
      const name = sql.slice(i + 1, end);
      if (!Object.hasOwn(named, name)) throw new RequestFailure(`The query names ${c}${name} but params has no "${name}"`, 'parameter_mismatch');
      let slot = slots.get(name);
      if (slot === undefined) {
        values.push(named[name]!);
        sources.push(name);
        slots.set(name, (slot = values.length));
      }
      text += `${sql.slice(from, i)}$${slot}`;
      from = i = end;
    } else i++;
  }
  finish(sql.length);
  if (positional && used !== positional.length) {
    throw new RequestFailure(`params has ${positional.length} values but the query has ${used} ? placeholders`, 'parameter_mismatch');
  }
  return statements;
}

/** Named params with or without their `:`/`@`/`$` prefix, by bare name (a null-prototype object: no `constructor`). */
export function namedValues(params: Record<string, SqlValue>): Record<string, SqlValue> {
  const values = Object.create(null) as Record<string, SqlValue>;
  for (const [key, value] of Object.entries(params)) values[/^[:@$]/.test(key) ? key.slice(1) : key] = value;
  return values;
}

function isWordChar(c: string | undefined): boolean {
  return c !== undefined && /[A-Za-z0-9_$]/.test(c);
}

/** `$$` or `$tag$` opening a dollar-quoted body at `i`, else undefined (`$1` is a parameter, `$name` a placeholder). */
function dollarTag(sql: string, i: number): string | undefined {
  const match = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i, i + 66));
  return match?.[0];
}

/** `E'…'`: a backslash escapes the next character, and `''` still stands for one quote. */
function skipEscapeString(sql: string, start: number): number {
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === '\\') i += 2;
    else if (sql[i] === "'") {
      if (sql[i + 1] === "'") i += 2;
      else return i + 1;
    } else i++;
  }
  return sql.length;
}

/** PostgreSQL's block comments nest; an unterminated one runs to the end (PostgreSQL then reports it). */
function skipNestedComment(sql: string, start: number): number {
  let depth = 0;
  let i = start;
  while (i < sql.length) {
    if (sql[i] === '/' && sql[i + 1] === '*') {
      depth++;
      i += 2;
    } else if (sql[i] === '*' && sql[i + 1] === '/') {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else i++;
  }
  return sql.length;
}

/** A `--` comment at `start` ends at a newline or a carriage return, as PostgreSQL's lexer reads it (scan.l). */
function skipLineComment(sql: string, start: number): number {
  for (let i = start + 2; i < sql.length; i++) if (sql[i] === '\n' || sql[i] === '\r') return i + 1;
  return sql.length;
}

/** Where a statement's text starts past whitespace and comments (and opening parentheses, when asked), as PostgreSQL reads them. */
export function skipLeadingComments(text: string, parentheses = false): number {
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c) || (parentheses && c === '(')) i++;
    else if (c === '-' && text[i + 1] === '-') i = skipLineComment(text, i);
    else if (c === '/' && text[i + 1] === '*') i = skipNestedComment(text, i);
    else break;
  }
  return i;
}

/** The first word of a statement past whitespace, comments and opening parentheses; '' when it has none. */
function firstKeyword(text: string): string {
  const i = skipLeadingComments(text, true);
  const match = /^[A-Za-z_]+/.exec(text.slice(i, i + 64));
  return match ? match[0].toUpperCase() : i < text.length ? '?' : '';
}
