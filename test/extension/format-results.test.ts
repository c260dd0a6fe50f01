import assert from 'node:assert/strict';
import { cellText, toCsv, toJson, toMarkdown } from '../../extension/src/sql/format-results.js';

const table = { column_names: ['id', 'note', 'id'], data: [[1, 'a, "quoted"\nline', null], ['9007199254740993', 'x|y', 2.5]] };

describe('extension: exporting a result', () => {
  it('writes RFC 4180 CSV: quoted fields with doubled quotes, CRLF rows, NULL as an empty field', () => {
    assert.equal(toCsv(table), 'id,note,id\r\n1,"a, ""quoted""\nline",\r\n9007199254740993,x|y,2.5\r\n');
  });

  it('writes JSON row objects, suffixing a repeated column name and keeping big integers exact', () => {
    assert.deepEqual(JSON.parse(toJson(table)), [
      { id: 1, note: 'a, "quoted"\nline', id_2: null },
      { id: '9007199254740993', note: 'x|y', id_2: 2.5 },
    ]);
  });

  it('writes a Markdown table with pipes escaped and line breaks as <br>', () => {
    assert.equal(toMarkdown(table), '| id | note | id |\n| --- | --- | --- |\n| 1 | a, "quoted"<br>line | NULL |\n| 9007199254740993 | x\\|y | 2.5 |\n');
  });

  it('shows NULL for null and JSON for objects', () => {
    assert.equal(cellText(null), 'NULL');
    assert.equal(cellText({ a: 1 }), '{"a":1}');
  });
});
