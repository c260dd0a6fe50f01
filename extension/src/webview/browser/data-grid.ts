import type { SqlColumnType } from '@tollgate/client';
import { createTable, getCoreRowModel, getFilteredRowModel, getSortedRowModel, type ColumnDef, type Row, type TableState, type Updater } from '@tanstack/table-core';
import { Virtualizer, elementScroll, observeElementOffset, observeElementRect } from '@tanstack/virtual-core';
import { cellText, compareCells, rangeAsTsv, storageAt } from '../../results/cell-text.js';
import { moveCell, type GridCell } from '../../results/grid-keys.js';
import type { SqlStorage } from '../protocol.js';
import { el } from './vscode-api.js';

/** Every row is one line (cellText), so rows have one height and the virtualizer needs no measuring. */
const ROW_HEIGHT = 24;

export interface GridEvents {
  /** A cell asked to be seen whole (double-click or Enter): the side inspector shows it. */
  inspect(value: unknown, column: string, storage: string | undefined): void;
  /** Ctrl+C on a selected range: its cells as tab-separated lines. */
  copy(text: string, cells: number): void;
  /** More rows are wanted, from row `from` (rows arrive in chunks; the grid asks for the next when one lands). */
  more(from: number): void;
}

export interface GridRows {
  /** The first chunk of rows. */
  rows: unknown[][];
  /** The size of the whole result; more than `rows.length` while chunks are still to come. */
  totalRows: number;
  /** A run restored after a window reload keeps only its first chunk: no more will come. */
  restored: boolean;
}

export interface DataGrid {
  element: HTMLElement;
  /** Source row indexes in the order shown (sorted, filtered): exports follow the view. Undefined (all rows, in order) while rows are still arriving. */
  viewOrder(): number[] | undefined;
  /** A chunk of rows from row `from`, with each column's per-row storage classes for them; `end`: no more. */
  append(from: number, rows: unknown[][], storageByRow: (SqlStorage[] | undefined)[], end: boolean): void;
  dispose(): void;
}

/**
 * The results grid: TanStack Table (headless sort and filter state) and TanStack Virtual (only the rows in
 * view are in the DOM), both plain TypeScript bundled by esbuild into the webview, so nothing loads from a
 * CDN and nothing injects a <style> the CSP would refuse. Click a header to sort, type in the filter row,
 * drag a header's edge to resize, drag or Shift+click over cells to select a range, Ctrl+C to copy it.
 */
export function dataGrid(columns: string[], columnTypes: SqlColumnType[] | undefined, first: GridRows, events: GridEvents): DataGrid {
  let rows = first.rows;
  // Copies: per-row storage classes grow with each chunk.
  const types = columnTypes?.map((type) => (type.storage_by_row ? { ...type, storage_by_row: [...type.storage_by_row] } : type));
  let complete = first.restored || rows.length >= first.totalRows;
  const valueAt = (row: Row<unknown[]>, column: number) => {
    const value = row.original[column];
    return cellText(value, storageAt(types?.[column], row.index, value), types?.[column]?.declared);
  };
  const defs: ColumnDef<unknown[]>[] = columns.map((name, index) => ({
    id: String(index),
    header: name,
    accessorFn: (row) => row[index],
    sortingFn: (a, b) => compareCells(a.original[index], b.original[index]),
    filterFn: (row, _id, filter: string) => valueAt(row, index).full.toLowerCase().includes(filter.toLowerCase()),
    sortUndefined: false,
  }));
  let state = {} as TableState;
  const table = createTable<unknown[]>({
    data: rows,
    columns: defs,
    state,
    onStateChange: (updater: Updater<TableState>) => {
      state = typeof updater === 'function' ? updater(state) : updater;
      table.setOptions((previous) => ({ ...previous, state }));
      refresh();
    },
    renderFallbackValue: null,
    // Ascending on the first click, descending on the second, for numbers too.
    sortDescFirst: false,
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
    getFilteredRowModel: getFilteredRowModel(),
  });
  state = table.initialState;
  table.setOptions((previous) => ({ ...previous, state }));

  const colgroup = el('colgroup', {}, el('col', { class: 'rownum-col' }), ...columns.map(() => el('col')));
  const headRow = el('tr', {}, el('th', { scope: 'col', class: 'rownum' }, '#'));
  const filterRow = el('tr', { class: 'filters' }, el('th', { class: 'rownum' }));
  columns.forEach((name, index) => {
    const sortMark = el('span', { class: 'sort', 'aria-hidden': 'true' });
    const label = el('button', { type: 'button', class: 'header-button', title: `Sort by ${name}` }, name, sortMark);
    label.addEventListener('click', () => table.getColumn(String(index))!.toggleSorting(undefined, false));
    const resizer = el('span', { class: 'resizer', role: 'separator', 'aria-label': `Resize ${name}` });
    resizer.addEventListener('pointerdown', (event) => startResize(event, colgroup.children[index + 1] as HTMLElement));
    headRow.append(el('th', { scope: 'col', 'data-column': String(index) }, label, resizer));
    const filter = el('input', { type: 'search', class: 'filter', placeholder: 'Filter', 'aria-label': `Filter ${name}` });
    filter.addEventListener('input', () => table.getColumn(String(index))!.setFilterValue(filter.value || undefined));
    filterRow.append(el('th', {}, filter));
  });
  const body = el('tbody');
  const grid = el('table', { class: 'grid', tabindex: '0', role: 'grid', 'aria-label': 'Query results', 'aria-rowcount': String(rows.length) }, colgroup, el('thead', {}, headRow, filterRow), body);
  const scroller = el('div', { class: 'grid-scroll' }, grid);
  const footer = el('p', { class: 'grid-footer', role: 'status' });
  const element = el('div', { class: 'data-grid' }, scroller, footer);

  let shown: Row<unknown[]>[] = [];
  /** Selection in view coordinates (row of `shown`, column index). */
  let anchor: GridCell | undefined;
  let focus: GridCell | undefined;

  const virtualizer = new Virtualizer<HTMLDivElement, HTMLTableRowElement>({
    count: 0,
    getScrollElement: () => scroller,
    estimateSize: () => ROW_HEIGHT,
    scrollToFn: elementScroll,
    observeElementRect,
    observeElementOffset,
    overscan: 12,
    onChange: () => drawRows(),
  });
  const unmount = virtualizer._didMount();

  function refresh(keepSelection = false): void {
    shown = table.getRowModel().rows;
    for (const header of headRow.querySelectorAll<HTMLElement>('th[data-column]')) {
      const sorted = table.getColumn(header.dataset.column!)!.getIsSorted();
      header.setAttribute('aria-sort', sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : 'none');
      header.querySelector('.sort')!.textContent = sorted === 'asc' ? ' ▲' : sorted === 'desc' ? ' ▼' : '';
    }
    footer.textContent = footerText();
    grid.setAttribute('aria-busy', String(!complete));
    grid.setAttribute('aria-rowcount', String(shown.length));
    if (!keepSelection) anchor = focus = undefined;
    virtualizer.setOptions({ ...virtualizer.options, count: shown.length });
    virtualizer._willUpdate();
    drawRows();
  }

  function footerText(): string {
    const matching = shown.length === rows.length ? `${rows.length} row${rows.length === 1 ? '' : 's'}` : `${shown.length} of ${rows.length} rows match the filters`;
    if (rows.length >= first.totalRows) return matching;
    if (first.restored) return `${matching} — the first ${rows.length} of ${first.totalRows}, kept over the window reload; run the query again for all`;
    return `${matching} — loading, ${rows.length} of ${first.totalRows}…`;
  }

  function drawRows(): void {
    const items = virtualizer.getVirtualItems();
    const first = items[0]?.start ?? 0;
    const after = virtualizer.getTotalSize() - (items.at(-1)?.end ?? 0);
    const spacer = (height: number) => {
      const tr = el('tr', { class: 'spacer', 'aria-hidden': 'true' });
      tr.style.height = `${height}px`;
      return tr;
    };
    const drawn: HTMLElement[] = [spacer(first)];
    for (const item of items) {
      const row = shown[item.index]!;
      const tr = el('tr', { 'aria-rowindex': String(item.index + 1) }, el('td', { class: 'rownum' }, String(row.index + 1)));
      row.original.forEach((_value, column) => {
        const text = valueAt(row, column);
        const td = el('td', { class: text.kind, title: text.full.length > 2000 ? `${text.full.slice(0, 2000)}…` : text.full, 'data-row': String(item.index), 'data-column': String(column) }, text.text);
        if (inSelection(item.index, column)) td.classList.add('selected');
        if (focus?.row === item.index && focus.column === column) td.classList.add('cursor');
        tr.append(td);
      });
      drawn.push(tr);
    }
    if (shown.length === 0) drawn.push(el('tr', {}, el('td', { colspan: String(columns.length + 1), class: 'empty' }, rows.length === 0 ? 'No rows.' : 'No rows match the filters.')));
    drawn.push(spacer(Math.max(0, after)));
    body.replaceChildren(...drawn);
  }

  function inSelection(row: number, column: number): boolean {
    if (!anchor || !focus) return false;
    return row >= Math.min(anchor.row, focus.row) && row <= Math.max(anchor.row, focus.row) && column >= Math.min(anchor.column, focus.column) && column <= Math.max(anchor.column, focus.column);
  }

  const cellAt = (target: EventTarget | null) => {
    const td = (target as HTMLElement | null)?.closest?.('td[data-row]') as HTMLElement | null;
    return td ? { row: Number(td.dataset.row), column: Number(td.dataset.column) } : undefined;
  };
  let dragging = false;
  body.addEventListener('pointerdown', (event) => {
    const at = cellAt(event.target);
    if (!at) return;
    if (event.shiftKey && anchor) focus = at;
    else anchor = focus = at;
    dragging = true;
    grid.focus();
    paintSelection();
  });
  body.addEventListener('pointerover', (event) => {
    const at = cellAt(event.target);
    if (!dragging || !at) return;
    focus = at;
    paintSelection();
  });
  /** Marks the selected cells in place: redrawing the rows would lose a double-click's target. */
  function paintSelection(): void {
    for (const td of body.querySelectorAll<HTMLElement>('td[data-row]')) {
      const row = Number(td.dataset.row);
      const column = Number(td.dataset.column);
      td.classList.toggle('selected', inSelection(row, column));
      td.classList.toggle('cursor', focus?.row === row && focus.column === column);
    }
  }
  window.addEventListener('pointerup', () => (dragging = false));
  body.addEventListener('dblclick', (event) => {
    const at = cellAt(event.target);
    if (at) inspect(at);
  });
  grid.addEventListener('keydown', (event) => {
    if ((event.ctrlKey || event.metaKey) && event.key === 'c' && anchor && focus) {
      event.preventDefault();
      const top = Math.min(anchor.row, focus.row);
      const bottom = Math.max(anchor.row, focus.row);
      const left = Math.min(anchor.column, focus.column);
      const right = Math.max(anchor.column, focus.column);
      events.copy(rangeAsTsv(shown.slice(top, bottom + 1).map((row) => row.original), left, right), (bottom - top + 1) * (right - left + 1));
    } else if ((event.ctrlKey || event.metaKey) && event.key === 'a' && shown.length > 0) {
      event.preventDefault();
      anchor = { row: 0, column: 0 };
      focus = { row: shown.length - 1, column: columns.length - 1 };
      paintSelection();
    } else if (event.key === 'Enter' && focus) inspect(focus);
    else navigate(event);
  });

  /** Arrow keys, PageUp/PageDown, Home/End move the cursor cell (Shift extends the range), scrolled into view. */
  function navigate(event: KeyboardEvent): void {
    const page = Math.max(1, Math.floor(scroller.clientHeight / ROW_HEIGHT) - 2);
    const next = moveCell(focus, event.key, { rows: shown.length, columns: columns.length, page }, event.ctrlKey || event.metaKey);
    if (!next) return;
    event.preventDefault();
    if (!event.shiftKey || !anchor) anchor = next;
    focus = next;
    virtualizer.scrollToIndex(next.row, { align: 'auto' });
    drawRows();
    body.querySelector(`td[data-row="${next.row}"][data-column="${next.column}"]`)?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }

  function inspect(at: { row: number; column: number }): void {
    const row = shown[at.row];
    if (row) events.inspect(row.original[at.column], columns[at.column]!, storageAt(types?.[at.column], row.index, row.original[at.column]) ?? undefined);
  }

  function startResize(event: PointerEvent, col: HTMLElement): void {
    event.preventDefault();
    const th = (event.target as HTMLElement).parentElement!;
    const startX = event.clientX;
    const startWidth = th.getBoundingClientRect().width;
    const move = (moved: PointerEvent) => (col.style.width = `${Math.max(40, startWidth + moved.clientX - startX)}px`);
    const up = () => {
      window.removeEventListener('pointermove', move);
      window.removeEventListener('pointerup', up);
    };
    window.addEventListener('pointermove', move);
    window.addEventListener('pointerup', up);
  }

  refresh();
  if (!complete) events.more(rows.length);
  return {
    element,
    viewOrder: () => (complete ? shown.map((row) => row.index) : undefined),
    append(from, chunk, storageByRow, end) {
      if (from !== rows.length) return; // a stale or repeated answer
      rows = rows.concat(chunk);
      storageByRow.forEach((classes, column) => classes && types?.[column]?.storage_by_row?.push(...classes));
      complete = end || rows.length >= first.totalRows;
      table.setOptions((previous) => ({ ...previous, data: rows }));
      refresh(true);
      if (!complete) events.more(rows.length);
    },
    dispose: unmount,
  };
}
