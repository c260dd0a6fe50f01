import assert from 'node:assert/strict';
import { cellText, compareCells, inspectorText } from '../../extension/src/results/cell-text.js';
import { toCsv } from '../../extension/src/sql/format-results.js';

describe('results cells', () => {
  it('does not cut a cell in the middle of a surrogate pair (an emoji at the 200-character limit)', () => {
    const value = `${'a'.repeat(199)}😀tail`;
    const { text } = cellText(value, 'text');
    assert.ok(!/[\uD800-\uDBFF]$/.test(text.slice(0, -1)), `cell ends in a lone high surrogate: ${JSON.stringify(text.slice(-3))}`);
  });

  it('draws twenty cells of a 50 MB text and of a 48 MiB BLOB in well under a second: only what a cell shows is read', () => {
    // The grid computes each visible cell on every draw (each scroll): a cell that read its whole value froze the view.
    const text = 'line\n'.repeat(10 * 1024 * 1024);
    const blob = Buffer.alloc(48 * 1024 * 1024, 7).toString('base64');
    const started = performance.now();
    for (let i = 0; i < 20; i++) {
      assert.equal(cellText(text, 'text').text, `${'line↵'.repeat(40)}…`);
      assert.equal(cellText(blob, 'blob').text, '<BLOB 50331648 bytes> 07 07 07 07 07 07 07 07 07 07 07 07 07 07 07 07 …');
    }
    const ms = performance.now() - started;
    assert.ok(ms < 1000, `20 draws of the two cells took ${Math.round(ms)} ms`);
    assert.equal(cellText(text, 'text').full, text, 'the tooltip and the filter still have the whole value');
  });

  it('marks a long value cut even where its start is all CRLF line breaks', () => {
    assert.equal(cellText('\r\n'.repeat(150), 'text').text, `${'↵'.repeat(150)}`);
    assert.equal(cellText('\r\n'.repeat(300), 'text').text, `${'↵'.repeat(200)}…`);
  });

  it('gives the exact size of a BLOB of every padding, its first bytes, and an empty one', () => {
    for (const size of [0, 1, 2, 3, 15, 16, 17, 100]) {
      const bytes = Buffer.from(Array.from({ length: size }, (_, i) => i));
      const hex = [...bytes.subarray(0, 16)].map((b) => b.toString(16).padStart(2, '0')).join(' ');
      assert.equal(cellText(bytes.toString('base64'), 'blob').text, `<BLOB ${size} byte${size === 1 ? '' : 's'}> ${hex}${size > 16 ? ' …' : ''}`.trimEnd());
    }
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
