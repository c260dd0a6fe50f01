/** One token of SQLite's grammar, as far as the statement policy needs to read. */
export interface Token {
  /** `word` is a keyword or identifier (quoted ones unquoted), `string` a literal, `number`, or one character. */
  kind: 'word' | 'string' | 'number' | 'punct';
  /** The word upper-cased when bare, the unquoted text when quoted, the literal's content, or the character. */
  text: string;
  /** Offset of the token's first character in the SQL text. */
  start: number;
}

/** The first tokens of the next statement of a SQL text, past any EXPLAIN prefix. */
export interface StatementHead {
  /** Where the statement's first token starts (EXPLAIN included). */
  start: number;
  /** The statement is an EXPLAIN or EXPLAIN QUERY PLAN: it shows a program and runs nothing. */
  explain: boolean;
  /** The tokens after the EXPLAIN prefix, up to the statement's end or `limit`. */
  tokens: Token[];
}

/** Characters that start a run of whitespace (tokenize.c's CC_SPACE). */
const whitespace = new Set([' ', '\t', '\n', '\f', '\r']);
/**
 * Characters that continue one (sqlite3Isspace): a vertical tab too. A vertical tab cannot start a token (it is
 * illegal there) but, after a space, SQLite skips it: read as a token of its own, ` \vPRAGMA …` and ` \vCOMMIT`
 * passed the policy as statements that start with neither, and SQLite ran them.
 */
const whitespaceRun = new Set([...whitespace, '\v']);
const wordChar = /[A-Za-z0-9_$\u0080-\uffff]/;
const closingQuote: Record<string, string> = { '"': '"', '`': '`', '[': ']' };

/**
 * Reads the head of the next statement of `sql` from `from` with SQLite's own lexical rules (tokenize.c):
 * whitespace, `--` and `/* *\/` comments and empty statements (`;`) are skipped, quoted identifiers and
 * string literals are read whole, so a keyword hidden in a comment or a string is never mistaken for one.
 * It reads no further than `limit` tokens or the `;` that ends the statement. Undefined when no statement is left.
 *
 * @example
 * readStatementHead("/* x *\/ EXPLAIN PRAGMA main.user_version = 3", 0)?.tokens.map((t) => t.text)
 * // ['PRAGMA', 'main', '.', 'USER_VERSION', '=', '3']
 */
export function readStatementHead(sql: string, from: number, limit = 12): StatementHead | undefined {
  const lexer = new Lexer(sql, from);
  let token = lexer.next();
  while (token?.kind === 'punct' && token.text === ';') token = lexer.next();
  if (!token) return undefined;
  const start = token.start;
  const tokens: Token[] = [];
  for (; token && !(token.kind === 'punct' && token.text === ';') && tokens.length < limit + 3; token = lexer.next()) tokens.push(token);
  let skip = 0;
  if (isWord(tokens[0], 'EXPLAIN')) skip = isWord(tokens[1], 'QUERY') && isWord(tokens[2], 'PLAN') ? 3 : 1;
  return { start, explain: skip > 0, tokens: tokens.slice(skip, skip + limit) };
}

/** Whether a token is the bare keyword `word` (upper case). A quoted "PRAGMA" is an identifier, not the keyword. */
export function isWord(token: Token | undefined, word: string): boolean {
  return token?.kind === 'word' && token.text === word;
}

/** Past the `*\/` closing the comment that starts at `start`, or the end: SQLite lets a comment run to the end. */
function closeOfComment(sql: string, start: number): number {
  const end = sql.indexOf('*/', start + 2);
  return end < 0 ? sql.length : end + 2;
}

class Lexer {
  constructor(
    private readonly sql: string,
    private at: number,
  ) {}

  next(): Token | undefined {
    this.skipSpaceAndComments();
    const { sql } = this;
    const start = this.at;
    if (start >= sql.length) return undefined;
    const c = sql[start]!;
    if (c === "'") return { kind: 'string', text: this.readQuoted("'"), start };
    if (c in closingQuote) return { kind: 'word', text: this.readQuoted(closingQuote[c]!), start };
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(sql[start + 1] ?? ''))) {
      while (this.at < sql.length && /[0-9A-Za-z_.]/.test(sql[this.at]!)) this.at++;
      return { kind: 'number', text: sql.slice(start, this.at), start };
    }
    if (wordChar.test(c)) {
      while (this.at < sql.length && wordChar.test(sql[this.at]!)) this.at++;
      return { kind: 'word', text: sql.slice(start, this.at).toUpperCase(), start };
    }
    this.at++;
    return { kind: 'punct', text: c, start };
  }

  private skipSpaceAndComments(): void {
    const { sql } = this;
    for (;;) {
      const c = sql[this.at];
      if (c !== undefined && whitespace.has(c)) {
        this.at++;
        while (this.at < sql.length && whitespaceRun.has(sql[this.at]!)) this.at++;
      }
      else if (c === '-' && sql[this.at + 1] === '-') this.at = sql.indexOf('\n', this.at) + 1 || sql.length;
      else if (c === '/' && sql[this.at + 1] === '*') this.at = closeOfComment(sql, this.at);
      else return;
    }
  }

  /** A quoted string or identifier; the closing character doubled stands for itself (not for `]`). */
  private readQuoted(close: string): string {
    const { sql } = this;
    let text = '';
    let i = this.at + 1;
    while (i < sql.length) {
      if (sql[i] === close) {
        if (close !== ']' && sql[i + 1] === close) {
          text += close;
          i += 2;
          continue;
        }
        this.at = i + 1;
        return text;
      }
      text += sql[i++];
    }
    this.at = sql.length;
    return text;
  }
}
