import type { FromResultsView, ResultsState, ToResultsView } from '../protocol.js';
import { el, vscodeApi } from './vscode-api.js';

const app = document.getElementById('app')!;
const send = (message: FromResultsView) => vscodeApi.postMessage(message);
let page = 0;

window.addEventListener('message', (event: MessageEvent<ToResultsView>) => {
  if (event.data.type !== 'show') return;
  page = 0;
  // Kept by VS Code for the panel's serializer: a reloaded window shows the same result.
  vscodeApi.setState({ state: event.data.state, pageSize: event.data.pageSize });
  render(event.data.state, event.data.pageSize);
});
send({ type: 'ready' });

function render(state: ResultsState, pageSize: number): void {
  const header = el('header', { class: 'summary' }, el('span', { class: 'label' }, state.label), el('span', { class: 'db' }, `db: ${state.db}`));
  app.replaceChildren(header);
  if (state.kind === 'running') app.append(el('p', { class: 'status', role: 'status' }, 'Running…'));
  else if (state.kind === 'cancelled') app.append(el('p', { class: 'status', role: 'status' }, 'Cancelled.'));
  else if (state.kind === 'error') {
    header.append(el('span', { class: 'elapsed' }, `${state.elapsedMs} ms`));
    app.append(el('div', { class: 'error', role: 'alert' }, el('strong', {}, state.code), ': ', state.message));
  } else if (state.kind === 'ok') {
    header.append(el('span', { class: 'elapsed' }, `${state.elapsedMs} ms`));
    app.append(el('p', { class: 'status ok', role: 'status' }, state.affectedRows === undefined ? 'Done.' : `${state.affectedRows} row${state.affectedRows === 1 ? '' : 's'} affected.`));
  } else {
    header.append(el('span', { class: 'count' }, `${state.rows.length} row${state.rows.length === 1 ? '' : 's'}`), el('span', { class: 'elapsed' }, `${state.elapsedMs} ms`));
    app.append(exportBar(), pager(state, pageSize), grid(state, pageSize));
  }
}

function exportBar(): HTMLElement {
  const bar = el('div', { class: 'toolbar', role: 'toolbar', 'aria-label': 'Export' });
  for (const format of ['csv', 'json', 'markdown'] as const) {
    const copy = el('button', { type: 'button', title: `Copy all rows as ${format.toUpperCase()}` }, `Copy ${format === 'markdown' ? 'Markdown' : format.toUpperCase()}`);
    copy.addEventListener('click', () => send({ type: 'export', format, to: 'clipboard' }));
    const save = el('button', { type: 'button', class: 'secondary', title: `Save all rows as ${format.toUpperCase()}` }, `Save…`);
    save.addEventListener('click', () => send({ type: 'export', format, to: 'file' }));
    bar.append(el('span', { class: 'group' }, copy, save));
  }
  return bar;
}

/** Large results are paged: the DOM holds one page, so a 100k-row result stays responsive. */
function pager(state: Extract<ResultsState, { kind: 'table' }>, pageSize: number): HTMLElement {
  const pages = Math.max(1, Math.ceil(state.rows.length / pageSize));
  const nav = el('nav', { class: 'pager', 'aria-label': 'Pages' });
  if (pages === 1) return nav;
  const go = (to: number) => {
    page = Math.min(pages - 1, Math.max(0, to));
    const table = app.querySelector('table');
    table?.replaceWith(grid(state, pageSize));
    nav.replaceWith(pager(state, pageSize));
  };
  const prev = el('button', { type: 'button', 'aria-label': 'Previous page' }, '‹ Prev');
  const next = el('button', { type: 'button', 'aria-label': 'Next page' }, 'Next ›');
  prev.toggleAttribute('disabled', page === 0);
  next.toggleAttribute('disabled', page === pages - 1);
  prev.addEventListener('click', () => go(page - 1));
  next.addEventListener('click', () => go(page + 1));
  const first = page * pageSize + 1;
  const last = Math.min(state.rows.length, (page + 1) * pageSize);
  nav.append(prev, el('span', { class: 'range' }, `Rows ${first}–${last} of ${state.rows.length}`), next);
  nav.addEventListener('keydown', (event) => {
    if (event.key === 'PageDown') go(page + 1);
    if (event.key === 'PageUp') go(page - 1);
  });
  return nav;
}

function grid(state: Extract<ResultsState, { kind: 'table' }>, pageSize: number): HTMLElement {
  const head = el('tr', {}, el('th', { scope: 'col', class: 'rownum' }, '#'), ...state.columns.map((name) => el('th', { scope: 'col' }, name)));
  const body = el('tbody');
  const start = page * pageSize;
  state.rows.slice(start, start + pageSize).forEach((row, i) => {
    body.append(el('tr', {}, el('td', { class: 'rownum' }, String(start + i + 1)), ...row.map(cell)));
  });
  if (state.rows.length === 0) body.append(el('tr', {}, el('td', { colspan: String(state.columns.length + 1), class: 'empty' }, 'No rows.')));
  return el('table', { class: 'grid', tabindex: '0', 'aria-label': 'Query results' }, el('thead', {}, head), body);
}

function cell(value: unknown): HTMLElement {
  if (value === null || value === undefined) return el('td', { class: 'null' }, 'NULL');
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return el('td', typeof value === 'number' ? { class: 'number' } : {}, text);
}
