/** One SQL statement of a document: its text and where it sits, as offsets into the document. */
export interface SqlStatement {
  text: string;
  start: number;
  /** Exclusive; includes the terminating `;` when there is one. */
  end: number;
}

/** Characters that open a span inside which `;` does not end a statement, and what closes it. */
const spans: Record<string, string> = { "'": "'", '"': '"', '`': '`', '[': ']', '--': '\n', '/*': '*/' };

/**
 * Splits SQL text into statements the way SQLite reads them: `;` ends a statement except inside strings,
 * quoted identifiers, comments and the `BEGIN … END` body of a `CREATE TRIGGER`. Statements that hold
 * only whitespace and comments are left out, as SQLite skips them, so indexes match the SQL endpoint's
 * `context.statement_index`.
 *
 * @example
 * splitStatements("SELECT ';'; SELECT 2").map((s) => s.text) // ["SELECT ';';", "SELECT 2"]
 */
export function splitStatements(sql: string): SqlStatement[] {
  const statements: SqlStatement[] = [];
  let start = 0;
  /** The last two tokens (words upper-cased): a trigger ends at the `;` of `; END ;`, as sqlite3_complete() reads it. */
  let last: [string, string] = ['', ''];
  let inTrigger: boolean | undefined;
  let i = 0;
  const finish = (end: number) => {
    const raw = sql.slice(start, end);
    if (hasCode(raw)) {
      const leading = raw.length - raw.trimStart().length;
      const text = raw.trim();
      statements.push({ text, start: start + leading, end: start + leading + text.length });
    }
    start = end;
    last = ['', ''];
    inTrigger = undefined;
  };

  while (i < sql.length) {
    const opener = sql.startsWith('--', i) ? '--' : sql.startsWith('/*', i) ? '/*' : sql[i]!;
    const closer = spans[opener];
    if (closer !== undefined) {
      if (opener !== '--' && opener !== '/*') last = [last[1], 'quoted'];
      i = skipSpan(sql, i + opener.length, closer);
      continue;
    }
    if (/[A-Za-z_]/.test(sql[i]!)) {
      wordAt.lastIndex = i;
      const word = wordAt.exec(sql)![0];
      inTrigger ??= isTriggerStart(sql.slice(start, i + word.length));
      last = [last[1], word.toUpperCase()];
      i += word.length;
      continue;
    }
    if (sql[i] === ';' && (!inTrigger || (last[0] === ';' && last[1] === 'END'))) {
      finish(i + 1);
    } else if (!/\s/.test(sql[i]!)) {
      last = [last[1], sql[i]!];
    }
    i++;
  }
  finish(sql.length);
  return statements;
}

/** Moves past a quoted or commented span; a doubled quote inside a string is an escaped quote. */
function skipSpan(sql: string, from: number, closer: string): number {
  let i = from;
  for (;;) {
    const at = sql.indexOf(closer, i);
    if (at === -1) return sql.length;
    if (closer.length === 1 && closer !== ']' && closer !== '\n' && sql[at + 1] === closer) {
      i = at + 2;
      continue;
    }
    return at + closer.length;
  }
}

/** Decided on the statement's first words, once they are known: `CREATE [TEMP|TEMPORARY] TRIGGER`. */
function isTriggerStart(head: string): boolean | undefined {
  const words = stripComments(head).trim().split(/\s+/).map((w) => w.toUpperCase());
  if (words[0] !== 'CREATE') return words[0] ? false : undefined;
  if (words.length < 2) return undefined;
  if (words[1] === 'TRIGGER') return true;
  if (words[1] === 'TEMP' || words[1] === 'TEMPORARY') return words.length < 3 ? undefined : words[2] === 'TRIGGER';
  return false;
}

/** A word, read from where it starts however long it is (a slice cut a long name in two). */
const wordAt = /[A-Za-z_][A-Za-z0-9_$]*/y;

function hasCode(text: string): boolean {
  return stripComments(text).replace(/;/g, '').trim() !== '';
}

function stripComments(text: string): string {
  return text.replace(/--[^\n]*(\n|$)/g, ' ').replace(/\/\*[\s\S]*?(\*\/|$)/g, ' ');
}
