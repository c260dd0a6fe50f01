import * as vscode from 'vscode';
import { SqlError, TollgateError, type SqlResult } from '@tollgate/client';
import type { GatewayHost } from '../host/gateway-host.js';
import { currentDatabase } from '../host/read-settings.js';
import type { ResultsPanel } from '../results/results-panel.js';
import type { ResultsState } from '../webview/protocol.js';
import { pickSql, type PickedSql } from './pick-sql.js';
import { errorRange } from './statement-error.js';
import type { QueryHistory } from './query-history.js';

/** A run still going after this long gets a notification with a Cancel button; quick ones stay quiet. */
const PROGRESS_AFTER_MS = 400;

interface RunRequest {
  sql: string;
  label: string;
  document?: vscode.TextDocument;
  picked?: PickedSql;
}

/** Runs SQL from the editor against the in-process gateway: results to the grid, errors to diagnostics. */
export class SqlRunner implements vscode.Disposable {
  readonly diagnostics = vscode.languages.createDiagnosticCollection('tollgate-sql');

  constructor(
    private readonly host: GatewayHost,
    private readonly results: ResultsPanel,
    private readonly history: QueryHistory,
  ) {}

  /** The selection, else the statement under the cursor, else the whole file; `whole` forces the file. */
  runEditor(editor: vscode.TextEditor, whole = false): Promise<void> {
    const { document, selection } = editor;
    const text = document.getText();
    const picked = whole
      ? pickSql(text, { start: 0, end: text.length }, 0)
      : pickSql(text, { start: document.offsetAt(selection.start), end: document.offsetAt(selection.end) }, document.offsetAt(selection.active));
    return this.run({ sql: picked.text, label: labelOf(document, picked), document, picked });
  }

  /** CodeLens "Run": one statement by its offsets. */
  runRange(document: vscode.TextDocument, start: number, end: number): Promise<void> {
    const text = document.getText();
    const picked: PickedSql = { ...pickSql(text, { start, end }, start), source: 'statement' };
    return this.run({ sql: picked.text, label: labelOf(document, picked), document, picked });
  }

  async runInput(): Promise<void> {
    const sql = await vscode.window.showInputBox({ title: 'Run SQL', prompt: `Against database "${currentDatabase()}"`, placeHolder: 'SELECT …', ignoreFocusOut: true });
    if (sql?.trim()) await this.run({ sql, label: 'Run SQL…' });
  }

  async showHistory(): Promise<void> {
    const items = this.history.entries().map((entry) => ({ label: entry.sql.replace(/\s+/g, ' ').slice(0, 120), description: `${entry.db} · ${entry.outcome}`, detail: new Date(entry.at).toLocaleString(), entry }));
    const chosen = await vscode.window.showQuickPick(items, { title: 'Query History', placeHolder: items.length ? 'Pick a query to open it in an editor' : 'No queries run yet', matchOnDetail: true });
    if (!chosen) return;
    const document = await vscode.workspace.openTextDocument({ language: 'sql', content: chosen.entry.sql });
    await vscode.window.showTextDocument(document);
  }

  async run(request: RunRequest): Promise<void> {
    const db = currentDatabase();
    if (request.document) this.diagnostics.delete(request.document.uri);
    this.results.show({ kind: 'running', label: request.label, db });
    const abort = new AbortController();
    this.host.noteSqlRun(db);
    const running = this.#execute(request.sql, db, abort.signal);
    const progress = setTimeout(() => showCancellableProgress(db, running, abort), PROGRESS_AFTER_MS);
    const outcome = await running;
    clearTimeout(progress);
    const state = toState(outcome, request.label, db, outcome.elapsedMs, abort.signal.aborted);
    this.results.show(state);
    if (state.kind === 'error' && request.document && request.picked) this.#diagnose(request.document, request.picked, outcome.error, state.message);
    if (state.kind !== 'cancelled') await this.history.add({ sql: request.sql, db, at: new Date().toISOString(), outcome: outcomeText(state) });
  }

  /** Elapsed time is the query's own: a first run's gateway start-up is not counted. */
  async #execute(sql: string, db: string, signal: AbortSignal): Promise<{ result?: SqlResult; error?: unknown; elapsedMs: number }> {
    let started = performance.now();
    const elapsedMs = () => Math.round(performance.now() - started);
    try {
      const gateway = await this.host.gateway();
      started = performance.now();
      const result = await gateway.client.sql(sql, { db, signal });
      return { result, elapsedMs: elapsedMs() };
    } catch (error) {
      return { error, elapsedMs: elapsedMs() };
    }
  }

  #diagnose(document: vscode.TextDocument, picked: PickedSql, error: unknown, message: string): void {
    const index = error instanceof SqlError ? (error.body as { context?: { statement_index?: number } }).context?.statement_index : undefined;
    const range = errorRange(picked.statements, index, message);
    if (!range) return;
    const diagnostic = new vscode.Diagnostic(new vscode.Range(document.positionAt(range.start), document.positionAt(range.end)), message, vscode.DiagnosticSeverity.Error);
    diagnostic.source = 'Tollgate';
    if (error instanceof SqlError && error.errorCode) diagnostic.code = error.errorCode;
    this.diagnostics.set(document.uri, [diagnostic]);
  }

  dispose(): void {
    this.diagnostics.dispose();
  }
}

function toState(outcome: { result?: SqlResult; error?: unknown }, label: string, db: string, elapsedMs: number, cancelled: boolean): ResultsState {
  if (cancelled) return { kind: 'cancelled', label, db };
  const { result, error } = outcome;
  if (result?.type === 'table') return { kind: 'table', label, db, elapsedMs, columns: result.column_names, rows: result.data };
  if (result) return { kind: 'ok', label, db, elapsedMs, affectedRows: result.affected_rows };
  const code = error instanceof SqlError ? (error.errorCode ?? 'sql_error') : error instanceof TollgateError ? (error.code ?? error.name) : 'error';
  return { kind: 'error', label, db, elapsedMs, code, message: (error as Error).message };
}

function outcomeText(state: ResultsState): string {
  if (state.kind === 'table') return `${state.rows.length} rows`;
  if (state.kind === 'ok') return state.affectedRows === undefined ? 'ok' : `${state.affectedRows} affected`;
  return state.kind === 'error' ? state.code : state.kind;
}

function labelOf(document: vscode.TextDocument, picked: PickedSql): string {
  const name = vscode.workspace.asRelativePath(document.uri);
  if (picked.source === 'file') return name;
  const line = document.positionAt(picked.start).line + 1;
  return `${name}:${line} (${picked.source})`;
}

function showCancellableProgress(db: string, running: Promise<unknown>, abort: AbortController): void {
  void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Running SQL on "${db}"…`, cancellable: true }, (_progress, token) => {
    token.onCancellationRequested(() => abort.abort());
    return running;
  });
}
