import assert from 'node:assert/strict';
import { splitStatements } from '../../extension/src/sql/split-statements.js';
import { pickSql } from '../../extension/src/sql/pick-sql.js';
import { errorRange } from '../../extension/src/sql/statement-error.js';

const texts = (sql: string) => splitStatements(sql).map((s) => s.text);

describe('extension: splitting a .sql file into statements', () => {
  it('ends statements at semicolons and keeps each one with its ; and exact offsets', () => {
    const sql = 'SELECT 1;\n  SELECT 2 ;\nSELECT 3';
    const statements = splitStatements(sql);
    assert.deepEqual(statements.map((s) => s.text), ['SELECT 1;', 'SELECT 2 ;', 'SELECT 3']);
    for (const s of statements) assert.equal(sql.slice(s.start, s.end), s.text);
  });

  it('does not split inside strings, doubled quotes, quoted identifiers, backticks or brackets', () => {
    assert.deepEqual(texts(`SELECT 'a;b', 'it''s; fine';SELECT "x;y" FROM [t;1], \`u;v\`;`), [`SELECT 'a;b', 'it''s; fine';`, 'SELECT "x;y" FROM [t;1], `u;v`;']);
  });

  it('does not split inside -- and /* */ comments, and leaves out statements that are only comments', () => {
    assert.deepEqual(texts('-- first; still a comment\nSELECT 1; /* a; b */ SELECT 2;\n-- trailing;\n/* only; */;'), ['-- first; still a comment\nSELECT 1;', '/* a; b */ SELECT 2;']);
  });

  it('keeps a CREATE TRIGGER … BEGIN … END body whole, CASE … END inside it included', () => {
    const trigger = `CREATE TEMP TRIGGER log_it AFTER INSERT ON t BEGIN
  INSERT INTO log VALUES (CASE WHEN new.x > 0 THEN 'pos;' ELSE 'neg' END);
  UPDATE t SET y = 1 WHERE id = new.id;
END;`;
    assert.deepEqual(texts(`CREATE TABLE t(x);\n${trigger}\nSELECT 1;`), ['CREATE TABLE t(x);', trigger, 'SELECT 1;']);
  });

  it('treats BEGIN outside a trigger as a statement of its own, and CASE … END in a plain query as nothing special', () => {
    assert.deepEqual(texts("BEGIN; SELECT CASE WHEN 1 THEN 'a' END; END;"), ['BEGIN;', "SELECT CASE WHEN 1 THEN 'a' END;", 'END;']);
  });

  it('survives an unterminated string or comment by running to the end', () => {
    assert.deepEqual(texts("SELECT 1; SELECT 'open; "), ['SELECT 1;', "SELECT 'open;"]);
    assert.deepEqual(texts('SELECT 1 /* open; '), ['SELECT 1 /* open;']);
  });
});

describe('extension: what "Run SQL" runs', () => {
  const doc = 'SELECT 1;\n\nSELECT 2;\nSELECT 3;';

  it('runs the selection when there is one', () => {
    const picked = pickSql(doc, { start: 11, end: 20 }, 20);
    assert.equal(picked.source, 'selection');
    assert.equal(picked.text, 'SELECT 2;');
  });

  it('runs the statement under the cursor, from its first character to just past its ;', () => {
    assert.equal(pickSql(doc, { start: 13, end: 13 }, 13).text, 'SELECT 2;');
    assert.equal(pickSql(doc, { start: 9, end: 9 }, 9).text, 'SELECT 1;');
  });

  it('runs the whole file when the cursor is between statements', () => {
    const picked = pickSql(doc, { start: 10, end: 10 }, 10);
    assert.equal(picked.source, 'file');
    assert.equal(picked.statements.length, 3);
  });

  it('puts an error on the statement the endpoint named, narrowed to the token SQLite quotes', () => {
    const picked = pickSql(doc.replace('SELECT 3', 'SELEC 3'), { start: 0, end: 0 }, 10);
    const range = errorRange(picked.statements, 2, 'near "SELEC": syntax error');
    assert.deepEqual(range, { start: 21, end: 26 });
    assert.deepEqual(errorRange(picked.statements, 1, 'UNIQUE constraint failed: t.name'), { start: 11, end: 20 });
    assert.equal(errorRange(picked.statements, undefined, 'boom'), undefined);
  });
});
