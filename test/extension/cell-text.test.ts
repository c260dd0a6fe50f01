import assert from 'node:assert/strict';
import { compareCells, inspectorText, rangeAsTsv, storageAt } from '../../extension/src/results/cell-text.js';

describe('extension: grid sorting, range copy and the inspector', () => {
  it('sorts as SQLite orders: NULL first, numbers by value, then text', () => {
    assert.deepEqual(['b', 10, null, 9, 'a'].sort(compareCells), [null, 9, 10, 'a', 'b']);
  });

  it('copies a range as tab-separated lines, NULL empty and line breaks flattened', () => {
    assert.equal(rangeAsTsv([[1, 'a\tb', null], [2, 'c\nd', 'x']], 1, 2), 'a b\t\nc d\tx');
  });

  it("takes a mixed column's storage class from the row, and a NULL's as null", () => {
    assert.equal(storageAt({ storage: 'mixed', storage_by_row: ['text', 'blob'] }, 1, 'AAE='), 'blob');
    assert.equal(storageAt({ storage: 'real' }, 5, 1.5), 'real');
    assert.equal(storageAt({ storage: 'real' }, 5, null), null);
  });

  it('sorts the text a float column sends for Infinity and NaN by value', () => {
    assert.deepEqual([2, 'Infinity', null, '-Infinity'].sort(compareCells), [null, '-Infinity', 2, 'Infinity']);
  });

  it('shows JSON text indented, a BLOB as a hex dump with its size, anything else as it is', () => {
    assert.deepEqual(inspectorText('{"a":[1,2]}', 'text'), { text: '{\n  "a": [\n    1,\n    2\n  ]\n}', kind: 'JSON text' });
    assert.deepEqual(inspectorText(Buffer.alloc(17, 1).toString('base64'), 'blob'), { text: `00000000  ${'01 '.repeat(15)}01\n00000010  01`, kind: 'BLOB, 17 bytes' });
    assert.deepEqual(inspectorText('[not json', 'text'), { text: '[not json', kind: 'text, 9 characters' });
    assert.deepEqual(inspectorText(null, undefined), { text: 'NULL', kind: 'NULL' });
  });
});
