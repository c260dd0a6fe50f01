import assert from 'node:assert/strict';
import { cellText } from '../../extension/src/results/cell-text.js';
import { pickSql } from '../../extension/src/sql/pick-sql.js';
import { RunQueue } from '../../extension/src/sql/run-queue.js';
import { splitStatements } from '../../extension/src/sql/split-statements.js';
import { runLabel, statementViews } from '../../extension/src/sql/statement-views.js';

const lineOf = (text: string) => (offset: number) => 1 + (text.slice(0, offset).match(/\n/g)?.length ?? 0);

describe('extension: per-statement results, labels, timing and cells', () => {
  const file = 'CREATE TABLE t(x);\nINSERT INTO t VALUES (1), (2);\nSELECT x FROM t;\n';

  it('gives each statement its SQL, line and result, in order', () => {
    const views = statementViews(
      splitStatements(file),
      { type: 'results', context: { db: 'main' }, results: [{ type: 'ok', context: {} }, { type: 'ok', context: {}, affected_rows: 2 }, { type: 'table', column_names: ['x'], data: [[1], [2]], context: { db: 'main' } }] },
      lineOf(file),
    );
    assert.deepEqual(
      views.map((view) => [view.sql, view.line, view.outcome.kind === 'ok' ? view.outcome.affectedRows : view.outcome.rows.length]),
      [['CREATE TABLE t(x);', 1, undefined], ['INSERT INTO t VALUES (1), (2);', 2, 2], ['SELECT x FROM t;', 3, 2]],
    );
  });

  it("shows a server's lone answer as the last statement's", () => {
    const views = statementViews(splitStatements(file), { type: 'table', column_names: ['x'], data: [[1]], context: { db: 'main' } }, lineOf(file));
    assert.deepEqual(views.map((view) => view.line), [3]);
  });

  it('labels a whole-file selection as the file, a part as a selection', () => {
    const all = pickSql(file, { start: 0, end: file.length }, 0);
    assert.equal(runLabel('a.sql', all.source, 1), 'a.sql');
    const part = pickSql(file, { start: 19, end: 49 }, 19);
    assert.equal(runLabel('a.sql', part.source, 2), 'a.sql:2 (selection)');
  });

  it('times a queued run from its own start and reports what it waited for', async () => {
    let now = 0;
    const queue = new RunQueue(() => now);
    let release!: () => void;
    const slow = queue.run('slow.sql', () => assert.fail('nothing ran before it'), () => new Promise<string>((resolve) => (release = () => resolve('slow'))));
    const behind: string[] = [];
    const quick = queue.run('SELECT 42', (label) => behind.push(label), async () => {
      now += 5;
      return 'quick';
    });
    assert.deepEqual(behind, ['slow.sql']);
    await new Promise((resolve) => setImmediate(resolve)); // the slow run has started
    now = 26_000;
    release();
    assert.deepEqual(await slow, { value: 'slow', waitedMs: 0, elapsedMs: 26_000 });
    assert.deepEqual(await quick, { value: 'quick', waitedMs: 26_000, elapsedMs: 5 });
  });

  it('shows NULL, a BLOB as size and hex, a newline as ↵ and a long text cut with the whole in the tooltip', () => {
    assert.deepEqual(cellText(null), { text: 'NULL', kind: 'null', full: 'NULL' });
    assert.deepEqual(cellText('AAECAw==', 'blob'), { text: '<BLOB 4 bytes> 00 01 02 03', kind: 'blob', full: '00 01 02 03' });
    assert.equal(cellText('a\nb', 'text').text, 'a↵b');
    const long = 'x'.repeat(500);
    assert.equal(cellText(long, 'text').text.length, 201);
    assert.equal(cellText(long, 'text').full, long);
    assert.deepEqual(cellText(1.5, 'real'), { text: '1.5', kind: 'number', full: '1.5' });
  });
});
