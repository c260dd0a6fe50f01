import assert from 'node:assert/strict';
import { cellText, compareCells, inspectorText } from '../../extension/src/results/cell-text.js';
import { toCsv } from '../../extension/src/sql/format-results.js';

describe('results cells', () => {
  it('does not cut a cell in the middle of a surrogate pair (an emoji at the 200-character limit)', () => {
    const value = `${'a'.repeat(199)}😀tail`;
    const { text } = cellText(value, 'text');
    assert.ok(!/[\uD800-\uDBFF]$/.test(text.slice(0, -1)), `cell ends in a lone high surrogate: ${JSON.stringify(text.slice(-3))}`);
  });

  it('sorts integers beyond 2^53 (sent as strings) by value among the other integers', () => {
    const column = ['9007199254740993', 5, '-9007199254740993', '10000000000000000000'];
    assert.deepEqual([...column].sort(compareCells), ['-9007199254740993', 5, '9007199254740993', '10000000000000000000']);
  });

  it('shows an integer beyond 2^53 in the inspector as a number, not as text', () => {
    assert.deepEqual(inspectorText('9223372036854775807', 'integer'), { text: '9223372036854775807', kind: 'number' });
  });

  it('does not round the numbers of a JSON text value in the inspector', () => {
    const seen = inspectorText('{"id":12345678901234567891}', 'text');
    assert.match(seen.text, /12345678901234567891/);
  });

  it('exports an empty string and NULL differently in CSV', () => {
    const csv = toCsv({ column_names: ['a', 'b'], data: [[null, '']] });
    const [, row] = csv.split('\r\n');
    assert.notEqual(row, ',', 'NULL and the empty string both export as an empty field');
  });
});
