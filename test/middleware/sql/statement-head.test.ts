import assert from 'node:assert/strict';
import { readStatementHead } from '../../../packages/middleware/src/sql/statement-head.js';

/** The statement policy reads each statement's head with SQLite's lexical rules: a table of texts and what it sees. */
describe('readStatementHead', () => {
  const cases: { sql: string; from?: number; explain?: boolean; words: string[] | undefined }[] = [
    { sql: 'PRAGMA writable_schema = ON', words: ['PRAGMA', 'WRITABLE_SCHEMA', '=', 'ON'] },
    { sql: '  -- PRAGMA x = 1\n/* PRAGMA */ select 1', words: ['SELECT', '1'] },
    { sql: ';;\n ; pragma "Writable_Schema"(1)', words: ['PRAGMA', 'Writable_Schema', '(', '1', ')'] },
    { sql: 'EXPLAIN QUERY PLAN PRAGMA main.foreign_keys=1', explain: true, words: ['PRAGMA', 'MAIN', '.', 'FOREIGN_KEYS', '=', '1'] },
    { sql: "SELECT 'a;PRAGMA x=1'; ATTACH 'f' AS g", words: ['SELECT', 'a;PRAGMA x=1'] },
    { sql: "SELECT 'a;PRAGMA x=1'; ATTACH 'f' AS g", from: 22, words: ['ATTACH', 'f', 'AS', 'G'] },
    { sql: 'CREATE TABLE [temp].x(a)', words: ['CREATE', 'TABLE', 'temp', '.', 'X', '(', 'A', ')'] },
    { sql: ' \v\tPRAGMA journal_mode = OFF', words: ['PRAGMA', 'JOURNAL_MODE', '=', 'OFF'] },
    { sql: '\vPRAGMA x', words: ['\v', 'PRAGMA', 'X'] },
    { sql: '   -- only a comment', words: undefined },
    { sql: '/* unterminated PRAGMA', words: undefined },
  ];
  for (const { sql, from = 0, explain = false, words } of cases) {
    it(`reads ${JSON.stringify(sql.slice(from))} as ${JSON.stringify(words)}`, () => {
      const head = readStatementHead(sql, from);
      assert.deepEqual(head?.tokens.map((token) => token.text), words);
      if (head) assert.equal(head.explain, explain);
    });
  }

  it('gives where the statement starts, after what SQLite skips', () => {
    const sql = ' ; /* c */ DELETE FROM t';
    assert.equal(sql.slice(readStatementHead(sql, 0)!.start), 'DELETE FROM t');
  });
});
