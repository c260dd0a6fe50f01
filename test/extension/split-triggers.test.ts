import assert from 'node:assert/strict';
import { splitStatements } from '../../extension/src/sql/split-statements.js';

const texts = (sql: string) => splitStatements(sql).map((s) => s.text);

describe('splitting trigger bodies', () => {
  it('keeps a trigger whole when its body names a column `end` (SQLite accepts END as an identifier)', () => {
    const trigger = 'CREATE TRIGGER clamp AFTER INSERT ON slots BEGIN UPDATE slots SET end = 10 WHERE id = new.id; END;';
    const sql = `CREATE TABLE slots(id INTEGER, begin INTEGER, end INTEGER);\n${trigger}\nSELECT * FROM slots;`;
    assert.deepEqual(texts(sql), ['CREATE TABLE slots(id INTEGER, begin INTEGER, end INTEGER);', trigger, 'SELECT * FROM slots;']);
  });

  it('keeps a trigger whole when an identifier longer than 64 characters ends in "end"', () => {
    const column = `${'x'.repeat(64)}end`;
    const trigger = `CREATE TRIGGER tr AFTER INSERT ON t BEGIN UPDATE t SET ${column} = 1; UPDATE t SET a = 2; END;`;
    assert.deepEqual(texts(`${trigger}\nSELECT 1;`), [trigger, 'SELECT 1;']);
  });
});
