import type { SqlColumnType } from '@tollgate/client';
import type { FromResultsView, ResultsState, StatementView, ToResultsView } from '../protocol.js';
import { cellText } from '../../results/cell-text.js';
import { el, vscodeApi } from './vscode-api.js';

const app = document.getElementById('app')!;
const send = (message: FromResultsView) => vscodeApi.postMessage(message);
let timer: ReturnType<typeof setInterval> | undefined;
let shown: ToResultsView | undefined;

window.addEventListener('message', (event: MessageEvent<ToResultsView>) => {
  if (event.data.type !== 'show') return;
  shown = event.data;
  // Kept by VS Code for the panel's serializer: a reloaded window shows the same runs.
  vscodeApi.setState({ runs: event.data.runs.filter((run) => run.kind === 'done' || run.kind === 'error') });
  render(event.data.selected);
});
send({ type: 'ready' });

/** The runs as tabs (newest first) and the selected one below: an earlier run's error stays one click away. */
function render(selected: number): void {
  if (!shown) return;
  const { runs, pageSize } = shown;
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
  children.push(...body(run, pageSize));
  app.replaceChildren(...children);
}

const statusIcon: Record<ResultsState['kind'], string> = { queued: '⏸', running: '⟳', done: '✓', error: '⚠', cancelled: '⨯' };

function body(run: ResultsState, pageSize: number): HTMLElement[] {
  const header = el('header', { class: 'summary' }, el('span', { class: 'label' }, run.label), el('span', { class: 'db' }, `db: ${run.db}`));
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
      if (run.statements.length > 1) header.append(el('span', { class: 'count' }, `${run.statements.length} statements`));
      else if (last?.kind === 'table') header.append(el('span', { class: 'count' }, plural(last.rows.length, 'row')));
      header.append(...timing(run.elapsedMs, run.waitedMs));
      return [header, ...run.statements.map((statement, index) => section(run, statement, index, pageSize))];
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
function section(run: Extract<ResultsState, { kind: 'done' }>, statement: StatementView, index: number, pageSize: number): HTMLElement {
  const { outcome } = statement;
  const head = el(
    'header',
    { class: 'statement-head' },
    el('code', { class: 'sql', title: statement.sql }, statement.sql.replace(/\s+/g, ' ')),
    statement.line ? el('span', { class: 'line' }, `line ${statement.line}`) : '',
    el('span', { class: 'outcome' }, outcome.kind === 'table' ? plural(outcome.rows.length, 'row') : outcome.affectedRows === undefined ? 'Done.' : `${plural(outcome.affectedRows, 'row')} affected.`),
  );
  const box = el('section', { class: `statement ${outcome.kind}`, 'aria-label': `Statement ${index + 1}` }, head);
  if (outcome.kind === 'ok') box.append(el('p', { class: 'status ok', role: 'status' }, outcome.affectedRows === undefined ? 'Done.' : `${plural(outcome.affectedRows, 'row')} affected.`));
  else box.append(exportBar(run.id, index), ...pagedGrid(outcome.columns, outcome.types, outcome.rows, pageSize));
  return box;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** One row of controls: a format, Copy and Save (it was six buttons on two rows). */
function exportBar(run: number, statement: number): HTMLElement {
  const format = el('select', { 'aria-label': 'Export format', class: 'export-format' }, el('option', { value: 'csv' }, 'CSV'), el('option', { value: 'json' }, 'JSON'), el('option', { value: 'markdown' }, 'Markdown'));
  const chosen = () => format.value as 'csv' | 'json' | 'markdown';
  const copy = el('button', { type: 'button', title: 'Copy all rows in this format' }, 'Copy');
  copy.addEventListener('click', () => send({ type: 'export', run, statement, format: chosen(), to: 'clipboard' }));
  const save = el('button', { type: 'button', class: 'secondary', title: 'Save all rows in this format' }, 'Save…');
  save.addEventListener('click', () => send({ type: 'export', run, statement, format: chosen(), to: 'file' }));
  return el('div', { class: 'toolbar', role: 'toolbar', 'aria-label': 'Export' }, format, copy, save);
}

/**
 * Large results are paged: the DOM holds one page, so a 100k-row result stays responsive. The pager
 * sits above and below the grid; PageUp/PageDown on the grid turn pages and keep focus on it.
 */
function pagedGrid(columns: string[], types: SqlColumnType[] | undefined, rows: unknown[][], pageSize: number): HTMLElement[] {
  const pages = Math.max(1, Math.ceil(rows.length / pageSize));
  let page = 0;
  const pagers = pages > 1 ? [pager(), pager()] : [];
  const table = el('table', { class: 'grid', tabindex: '0', 'aria-label': 'Query results' });
  const wrapper = el('div', { class: 'grid-scroll' }, table);
  const draw = () => {
    table.replaceChildren(gridHead(columns), gridBody(columns, types, rows, page * pageSize, pageSize));
    for (const nav of pagers) updatePager(nav);
  };
  const go = (to: number) => {
    page = Math.min(pages - 1, Math.max(0, to));
    draw();
  };
  function pager(): HTMLElement {
    const prev = el('button', { type: 'button', 'aria-label': 'Previous page', class: 'prev' }, '‹ Prev');
    const next = el('button', { type: 'button', 'aria-label': 'Next page', class: 'next' }, 'Next ›');
    prev.addEventListener('click', () => go(page - 1));
    next.addEventListener('click', () => go(page + 1));
    return el('nav', { class: 'pager', 'aria-label': 'Pages' }, prev, el('span', { class: 'range' }), next);
  }
  function updatePager(nav: HTMLElement): void {
    nav.querySelector('.prev')!.toggleAttribute('disabled', page === 0);
    nav.querySelector('.next')!.toggleAttribute('disabled', page === pages - 1);
    nav.querySelector('.range')!.textContent = `Rows ${page * pageSize + 1}–${Math.min(rows.length, (page + 1) * pageSize)} of ${rows.length}`;
  }
  table.addEventListener('keydown', (event) => {
    if (event.key === 'PageDown' && page < pages - 1) go(page + 1);
    else if (event.key === 'PageUp' && page > 0) go(page - 1);
    else return;
    event.preventDefault();
    table.focus();
  });
  draw();
  return pagers.length ? [pagers[0]!, wrapper, pagers[1]!] : [wrapper];
}

function gridHead(columns: string[]): HTMLElement {
  return el('thead', {}, el('tr', {}, el('th', { scope: 'col', class: 'rownum' }, '#'), ...columns.map((name) => el('th', { scope: 'col' }, name))));
}

function gridBody(columns: string[], types: SqlColumnType[] | undefined, rows: unknown[][], start: number, pageSize: number): HTMLElement {
  const body = el('tbody');
  rows.slice(start, start + pageSize).forEach((row, i) => {
    body.append(el('tr', {}, el('td', { class: 'rownum' }, String(start + i + 1)), ...row.map((value, column) => cell(value, types?.[column], start + i))));
  });
  if (rows.length === 0) body.append(el('tr', {}, el('td', { colspan: String(columns.length + 1), class: 'empty' }, 'No rows.')));
  return body;
}

function cell(value: unknown, type: SqlColumnType | undefined, row: number): HTMLElement {
  const storage = type?.storage === 'mixed' ? type.storage_by_row?.[row] : type?.storage;
  const shown = cellText(value, storage ?? undefined);
  return el('td', { class: shown.kind, title: shown.full }, shown.text);
}
