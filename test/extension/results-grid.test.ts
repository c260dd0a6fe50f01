import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cellText, storageAt } from '../../extension/src/results/cell-text.js';
import { moveCell } from '../../extension/src/results/grid-keys.js';
import { CHUNK_ROWS, RESTORED_ROWS, SHOWN_STATEMENTS, firstChunks, restorableRuns, rowsChunk } from '../../extension/src/results/row-chunks.js';
import { startSessionGateway, type SessionGateway } from '../../extension/src/host/session-gateway.js';
import type { ResultsState } from '../../extension/src/webview/protocol.js';

const dist = new URL('../../extension/dist/', import.meta.url);

function tableRun(id: number, count: number): ResultsState {
  const rows = Array.from({ length: count }, (_, index) => [index + 1, index % 2 ? 'x' : 1.5]);
  const types = [{ declared: null, storage: 'integer' as const }, { declared: null, storage: 'mixed' as const, storage_by_row: rows.map((row) => (typeof row[1] === 'string' ? ('text' as const) : ('real' as const))) }];
  return { id, label: 'big.sql', db: 'scratch', kind: 'done', elapsedMs: 3, statements: [{ sql: 'CREATE …', outcome: { kind: 'ok', affectedRows: 0 } }, { sql: 'SELECT …', outcome: { kind: 'table', columns: ['n', 'v'], types, rows } }] };
}

const tableOf = (run: ResultsState) => {
  const outcome = run.kind === 'done' ? run.statements[1]!.outcome : undefined;
  assert.ok(outcome?.kind === 'table');
  return outcome;
};

describe('extension: the results grid — chunks, restore after reload, keys, non-finite numbers', () => {
  it('posts a large result with its first chunk of rows and its total, and serves the rest chunk by chunk', () => {
    const run = tableRun(1, 5_000);
    const posted = tableOf(firstChunks(run));
    assert.equal(posted.rows.length, CHUNK_ROWS);
    assert.equal(posted.totalRows, 5_000);
    assert.equal(posted.types?.[1]?.storage_by_row?.length, CHUNK_ROWS);
    const seen = [...posted.rows];
    for (let from = CHUNK_ROWS, end = false; !end; from += CHUNK_ROWS) {
      const chunk = rowsChunk(run, 1, from);
      assert.equal(chunk.storageByRow[1]?.length, chunk.rows.length);
      seen.push(...chunk.rows);
      end = chunk.end;
    }
    assert.deepEqual(seen, tableOf(run).rows);
    assert.equal(tableOf(run).rows.length, 5_000, 'the host keeps every row');
  });

  it('posts a run of 100,000 statements (a .sql file of them, run whole) as its first and last sections, each with its place', () => {
    // The view draws a section, and a grid for each table, per statement posted: 100,000 of them froze it.
    const statements = Array.from({ length: 100_000 }, (_, index) => ({ sql: `SELECT ${index};`, line: index + 1, outcome: { kind: 'table' as const, columns: ['n'], rows: [[index]] } }));
    const run: ResultsState = { id: 7, label: 'huge.sql', db: 'scratch', kind: 'done', elapsedMs: 1549, statements };
    for (const posted of [firstChunks(run), restorableRuns([run])[0]!]) {
      assert.ok(posted.kind === 'done');
      assert.equal(posted.statements.length, SHOWN_STATEMENTS);
      const places = posted.statements.map((statement) => statement.index);
      assert.deepEqual(places.slice(0, 2), [0, 1]);
      assert.deepEqual(places.slice(-2), [99_998, 99_999], 'the last statements, whose answer a script usually ends on, are shown');
      assert.equal(posted.totalStatements, 100_000);
      assert.ok(JSON.stringify(posted).length < 100_000, `${JSON.stringify(posted).length} bytes posted`);
    }
    assert.deepEqual(rowsChunk(run, 99_999, 0).rows, [[99_999]], 'rows and exports are asked for by the statement\'s place in the run');
    const short = firstChunks(tableRun(1, 3));
    assert.ok(short.kind === 'done' && short.statements.length === 2 && short.totalStatements === undefined, 'a short run is posted whole');
  });

  it('answers a chunk of an unknown run or a statement without rows as the end, empty', () => {
    assert.deepEqual(rowsChunk(undefined, 0, 0), { rows: [], storageByRow: [], end: true });
    assert.deepEqual(rowsChunk(tableRun(1, 3), 0, 0), { rows: [], storageByRow: [], end: true });
  });

  it('keeps finished runs over a window reload, each result cut to its first rows and marked restored', () => {
    const running: ResultsState = { id: 3, label: 'q', db: 'scratch', kind: 'running' };
    const kept = restorableRuns([running, tableRun(2, 5_000), { id: 1, label: 'bad', db: 'scratch', kind: 'error', elapsedMs: 1, code: 'syntax_error', message: 'near "SELEC"' }]);
    assert.deepEqual(kept.map((run) => [run.id, run.kind, run.restored]), [[2, 'done', true], [1, 'error', true]]);
    assert.equal(tableOf(kept[0]!).rows.length, RESTORED_ROWS);
    assert.equal(tableOf(kept[0]!).totalRows, 5_000);
    assert.ok(JSON.stringify(kept).length < 100_000, 'small enough for workspace state');
  });

  it('moves the cursor cell with arrows, pages, Home and End, inside the grid', () => {
    const bounds = { rows: 100, columns: 3, page: 20 };
    assert.deepEqual(moveCell(undefined, 'ArrowDown', bounds), { row: 0, column: 0 });
    assert.deepEqual(moveCell({ row: 0, column: 0 }, 'ArrowUp', bounds), { row: 0, column: 0 });
    assert.deepEqual(moveCell({ row: 5, column: 1 }, 'ArrowRight', bounds), { row: 5, column: 2 });
    assert.deepEqual(moveCell({ row: 5, column: 2 }, 'ArrowRight', bounds), { row: 5, column: 2 });
    assert.deepEqual(moveCell({ row: 90, column: 1 }, 'PageDown', bounds), { row: 99, column: 1 });
    assert.deepEqual(moveCell({ row: 30, column: 1 }, 'PageUp', bounds), { row: 10, column: 1 });
    assert.deepEqual(moveCell({ row: 30, column: 1 }, 'End', bounds), { row: 30, column: 2 });
    assert.deepEqual(moveCell({ row: 30, column: 1 }, 'Home', bounds, true), { row: 0, column: 0 });
    assert.deepEqual(moveCell({ row: 30, column: 1 }, 'End', bounds, true), { row: 99, column: 2 });
    assert.equal(moveCell({ row: 1, column: 1 }, 'a', bounds), undefined);
    assert.equal(moveCell(undefined, 'ArrowDown', { rows: 0, columns: 3, page: 20 }), undefined);
  });

  describe('non-finite numbers as the SQL endpoint sends them', () => {
    let gateway: SessionGateway;
    let dir: string;
    before(async () => {
      assert.ok(existsSync(new URL('sql-worker.mjs', dist)), 'extension/dist is built by `npm run build`');
      dir = mkdtempSync(join(tmpdir(), 'tollgate-ext-'));
      gateway = await startSessionGateway(
        { databases: { scratch: ':memory:' }, providers: {}, models: {}, defaultCatalog: false, sessionBudgetUsd: 5, limits: {}, sqlTimeoutMs: 2_000, sqlMaxRows: 1_000 },
        { providerKeys: {}, baseDir: dir, sqlAssets: { wasmPath: new URL('sql-wasm.wasm', dist).pathname, workerUrl: new URL('sql-worker.mjs', dist) }, logger: { info() {}, error() {} } },
      );
    });
    after(async () => {
      await gateway?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('shows a REAL Infinity and -Infinity with their sign, in a mixed column and in a column of one class, NULL stays NULL', async () => {
      const mixed = await gateway.client.sql("SELECT 1e999 AS v UNION ALL SELECT -1e999 UNION ALL SELECT NULL UNION ALL SELECT 'text'", { db: 'scratch' });
      assert.ok(mixed.type === 'table');
      const mixedType = mixed.column_types?.[0];
      assert.deepEqual(mixed.data.map((row, index) => cellText(row[0], storageAt(mixedType, index, row[0]), mixedType?.declared).text), ['Infinity', '-Infinity', 'NULL', 'text']);
      const single = await gateway.client.sql('SELECT -1e999 AS v', { db: 'scratch' });
      assert.ok(single.type === 'table');
      const singleType = single.column_types?.[0];
      assert.deepEqual(cellText(single.data[0]![0], storageAt(singleType, 0, single.data[0]![0]), singleType?.declared), { text: '-Infinity', kind: 'number', full: '-Infinity' });
    });

    it("shows a float column's Infinity and NaN sent as text (the PostgreSQL kind) literally, as numbers", () => {
      assert.deepEqual(cellText('Infinity', 'text', 'float8'), { text: 'Infinity', kind: 'number', full: 'Infinity' });
      assert.deepEqual(cellText('-Infinity', 'text', 'float4'), { text: '-Infinity', kind: 'number', full: '-Infinity' });
      assert.deepEqual(cellText('NaN', 'text', 'float8'), { text: 'NaN', kind: 'number', full: 'NaN' });
      assert.equal(cellText('Infinity', 'text', 'text').kind, 'text', 'a word in a text column stays text');
    });
  });
});
