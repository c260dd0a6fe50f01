import type { FromResultsView, ResultsState, StatementView, ToResultsView } from '../protocol.js';
import { inspectorText } from '../../results/cell-text.js';
import { dataGrid, type DataGrid } from './data-grid.js';
import { el, vscodeApi } from './vscode-api.js';

const app = document.getElementById('app')!;
const send = (message: FromResultsView) => vscodeApi.postMessage(message);
let timer: ReturnType<typeof setInterval> | undefined;
let shown: Extract<ToResultsView, { type: 'show' }> | undefined;
/** The grids on screen by `run:statement`, so a chunk of rows finds its grid. */
let grids = new Map<string, DataGrid>();
const inspector = el('aside', { class: 'inspector', 'aria-label': 'Value inspector', hidden: '' });

window.addEventListener('message', (event: MessageEvent<ToResultsView>) => {
  const message = event.data;
  if (message.type === 'rows') return grids.get(`${message.run}:${message.statement}`)?.append(message.from, message.rows, message.storageByRow, message.end);
  shown = message;
  render(message.selected);
});
send({ type: 'ready', load: document.body.dataset.load ?? '' });

/** The runs as tabs (newest first) and the selected one below: an earlier run's error stays one click away. */
function render(selected: number): void {
  if (!shown) return;
  const { runs } = shown;
  const run = runs.find((candidate) => candidate.id === selected) ?? runs[0];
  if (!run) return;
  if (timer) clearInterval(timer);
  const children: HTMLElement[] = [];
  if (runs.length > 1) {
    const tabs = el('nav', { class: 'runs', role: 'tablist', 'aria-label': 'Runs' });
    for (const candidate of runs) {
      const tab = el('button', { type: 'button', role: 'tab', class: `run-tab is-${candidate.kind}`, 'aria-selected': String(candidate === run), title: candidate.label }, `${statusIcon[candidate.kind]} ${candidate.label}`);
      tab.addEventListener('click', () => render(candidate.id));
      tabs.append(tab);
    }
    children.push(tabs);
  }
  for (const grid of grids.values()) grid.dispose();
  grids = new Map();
  children.push(...body(run));
  inspector.hidden = true;
  app.replaceChildren(el('div', { class: 'results-main' }, ...children), inspector);
}

const statusIcon: Record<ResultsState['kind'], string> = { queued: '⏸', running: '⟳', done: '✓', error: '⚠', cancelled: '⨯' };

function body(run: ResultsState): HTMLElement[] {
  const header = el('header', { class: 'summary' }, el('span', { class: 'label' }, run.label), el('span', { class: 'db' }, `db: ${run.db}`));
  if (run.restored) header.append(el('span', { class: 'restored', title: 'Shown again after the window reload; large results keep their first rows' }, 'before reload'));
  switch (run.kind) {
    case 'queued':
      return [header, el('p', { class: 'status queued', role: 'status' }, `Queued: waits for ${run.behind} to finish.`)];
    case 'running': {
      const status = el('span', {}, 'Running…');
      const started = Date.now();
      timer = setInterval(() => (status.textContent = `Running… ${Math.floor((Date.now() - started) / 1000)} s`), 1000);
      const cancel = el('button', { type: 'button', class: 'secondary' }, 'Cancel');
      cancel.addEventListener('click', () => send({ type: 'cancel', run: run.id }));
      return [header, el('p', { class: 'status running', role: 'status' }, status, ' ', cancel)];
    }
    case 'cancelled':
      return [header, el('p', { class: 'status', role: 'status' }, 'Cancelled.')];
    case 'error':
      header.append(...timing(run.elapsedMs, run.waitedMs));
      return [header, el('div', { class: 'error', role: 'alert' }, el('strong', {}, run.code), ': ', run.message, run.statementLine ? ` (statement at line ${run.statementLine})` : '')];
    case 'done': {
      const last = run.statements.at(-1)?.outcome;
      const total = run.totalStatements ?? run.statements.length;
      if (total > 1) header.append(el('span', { class: 'count' }, `${total} statements`));
      else if (last?.kind === 'table') header.append(el('span', { class: 'count' }, plural(last.totalRows ?? last.rows.length, 'row')));
      header.append(...timing(run.elapsedMs, run.waitedMs));
      // A long run comes as its first and last statements (row-chunks.ts): the ones between are counted, not drawn.
      return [header, ...run.statements.flatMap((statement, position) => {
        const index = statement.index ?? position;
        const skipped = index - (run.statements[position - 1]?.index ?? index - 1) - 1;
        const gap = skipped > 0 ? [el('p', { class: 'status omitted', role: 'status' }, `${skipped} more statements ran here, not shown: the results show a run's first and last ${run.statements.length / 2}.`)] : [];
        return [...gap, section(run, statement, index)];
      })];
    }
  }
}

/** Execution time only; time queued behind another run is shown apart (issue 18 #4). */
function timing(elapsedMs: number, waitedMs: number | undefined): HTMLElement[] {
  const spans = [el('span', { class: 'elapsed', title: 'Time the run executed' }, `${elapsedMs} ms`)];
  if (waitedMs) spans.push(el('span', { class: 'waited', title: 'Time spent queued behind another run, not counted above' }, `queued ${waitedMs} ms`));
  return spans;
}

/** One statement: its SQL, what it answered, and its rows (paged, exportable) if it has any. */
function section(run: Extract<ResultsState, { kind: 'done' }>, statement: StatementView, index: number): HTMLElement {
  const { outcome } = statement;
  const head = el(
    'header',
    { class: 'statement-head' },
    el('code', { class: 'sql', title: statement.sql }, statement.sql.replace(/\s+/g, ' ')),
    statement.line ? el('span', { class: 'line' }, `line ${statement.line}`) : '',
    el('span', { class: 'outcome' }, outcome.kind === 'table' ? plural(outcome.totalRows ?? outcome.rows.length, 'row') : outcome.affectedRows === undefined ? 'Done.' : `${plural(outcome.affectedRows, 'row')} affected.`),
  );
  const box = el('section', { class: `statement ${outcome.kind}`, 'aria-label': `Statement ${index + 1}` }, head);
  if (outcome.kind === 'ok') box.append(el('p', { class: 'status ok', role: 'status' }, outcome.affectedRows === undefined ? 'Done.' : `${plural(outcome.affectedRows, 'row')} affected.`));
  else {
    const grid = dataGrid(outcome.columns, outcome.types, { rows: outcome.rows, totalRows: outcome.totalRows ?? outcome.rows.length, restored: run.restored ?? false }, {
      inspect: showInspector,
      copy: (text, cells) => send({ type: 'copy', text, cells }),
      more: (from) => send({ type: 'rows', run: run.id, statement: index, from }),
    });
    grids.set(`${run.id}:${index}`, grid);
    box.append(exportBar(run.id, index, grid), grid.element);
  }
  return box;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** One row of controls: a format, Copy and Save (it was six buttons on two rows); they export the rows as sorted and filtered. */
function exportBar(run: number, statement: number, grid: DataGrid): HTMLElement {
  const format = el('select', { 'aria-label': 'Export format', class: 'export-format' }, el('option', { value: 'csv' }, 'CSV'), el('option', { value: 'json' }, 'JSON'), el('option', { value: 'markdown' }, 'Markdown'));
  const chosen = () => format.value as 'csv' | 'json' | 'markdown';
  const copy = el('button', { type: 'button', title: 'Copy all rows in this format' }, 'Copy');
  copy.addEventListener('click', () => send({ type: 'export', run, statement, format: chosen(), to: 'clipboard', order: grid.viewOrder() }));
  const save = el('button', { type: 'button', class: 'secondary', title: 'Save all rows in this format' }, 'Save…');
  save.addEventListener('click', () => send({ type: 'export', run, statement, format: chosen(), to: 'file', order: grid.viewOrder() }));
  return el('div', { class: 'toolbar', role: 'toolbar', 'aria-label': 'Export' }, format, copy, save);
}

/** A value seen whole beside the grid: long text wrapped, JSON indented, a BLOB as size and hex dump. */
function showInspector(value: unknown, column: string, storage: string | undefined): void {
  const seen = inspectorText(value, storage);
  const close = el('button', { type: 'button', class: 'secondary', 'aria-label': 'Close inspector' }, '×');
  close.addEventListener('click', () => (inspector.hidden = true));
  inspector.replaceChildren(el('header', {}, el('strong', {}, column), el('span', { class: 'kind' }, seen.kind), close), el('pre', { class: 'inspected', tabindex: '0' }, seen.text));
  inspector.hidden = false;
}
