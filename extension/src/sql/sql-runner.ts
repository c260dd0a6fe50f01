import * as vscode from 'vscode';
import { SqlError, TollgateError, type SqlResult, type SqlResults } from '@tollgate/client';
import type { GatewayHost } from '../host/gateway-host.js';
import { currentDatabase } from '../host/read-settings.js';
import type { ResultsPanel } from '../results/results-panel.js';
import type { ResultsState } from '../webview/protocol.js';
import { pickSql, type PickedSql } from './pick-sql.js';
import { RunQueue } from './run-queue.js';
import { splitStatements, type SqlStatement } from './split-statements.js';
import { errorRange } from './statement-error.js';
import { runLabel, statementViews } from './statement-views.js';
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
  readonly #queue = new RunQueue(() => performance.now());
  readonly #aborts = new Map<number, AbortController>();
  readonly #cancelListener: vscode.Disposable;
  readonly #ran = new vscode.EventEmitter<string>();
  /** A run finished on this database: its schema may have changed. */
  readonly onDidRun = this.#ran.event;
  #runs = 0;

  constructor(
    private readonly host: GatewayHost,
    private readonly results: ResultsPanel,
    private readonly history: QueryHistory,
  ) {
    this.#cancelListener = results.onDidRequestCancel((id) => this.cancel(id));
  }

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

  /**
   * Runs one request after any run before it (shown "queued" meanwhile), with a Running… state and
   * Cancel in the panel, then every statement's result. Time is counted from the moment it starts.
   */
  async run(request: RunRequest): Promise<void> {
    const db = currentDatabase();
    const id = ++this.#runs;
    const head = { id, label: request.label, db };
    if (request.document) this.diagnostics.delete(request.document.uri);
    const abort = new AbortController();
    this.#aborts.set(id, abort);
    const statements = request.picked?.statements ?? splitStatements(request.sql);
    try {
      const timed = await this.#queue.run(
        request.label,
        (behind) => this.results.show({ ...head, kind: 'queued', behind }),
        async () => {
          this.results.show({ ...head, kind: 'running' });
          this.host.noteSqlRun(db);
          const running = this.#execute(request.sql, statements.length > 1, db, abort.signal);
          const progress = setTimeout(() => showCancellableProgress(db, running, abort), PROGRESS_AFTER_MS);
          try {
            return await running;
          } finally {
            clearTimeout(progress);
          }
        },
      );
      const lineOf = (offset: number) => (request.document ? request.document.positionAt(offset).line + 1 : 1 + (request.sql.slice(0, offset).match(/\n/g)?.length ?? 0));
      const state = toState(timed.value, head, statements, lineOf, timed.elapsedMs, timed.waitedMs, abort.signal.aborted);
      this.results.show(state);
      if (state.kind === 'error' && request.document && request.picked) this.#diagnose(request.document, request.picked, timed.value.error, state.message);
      if (state.kind !== 'cancelled') this.#ran.fire(db);
      if (state.kind !== 'cancelled') await this.history.add({ sql: request.sql, db, at: new Date().toISOString(), outcome: outcomeText(state) });
    } finally {
      this.#aborts.delete(id);
    }
  }

  /** The panel's Cancel, or the notification's, for run `id`. */
  cancel(id: number): void {
    this.#aborts.get(id)?.abort();
  }

  /** The gateway's start-up on a first run happens before the clock starts. */
  async #execute(sql: string, several: boolean, db: string, signal: AbortSignal): Promise<Outcome> {
    try {
      const gateway = await this.host.gateway();
      return { answer: several ? await gateway.client.sqlAll(sql, { db, signal }) : await gateway.client.sql(sql, { db, signal }) };
    } catch (error) {
      return { error };
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
    this.#cancelListener.dispose();
    this.#ran.dispose();
    this.diagnostics.dispose();
  }
}

interface Outcome {
  answer?: SqlResult | SqlResults;
  error?: unknown;
}

function toState(outcome: Outcome, head: { id: number; label: string; db: string }, statements: SqlStatement[], lineOf: (offset: number) => number, elapsedMs: number, waitedMs: number, cancelled: boolean): ResultsState {
  if (cancelled) return { ...head, kind: 'cancelled' };
  const waited = waitedMs > 0 ? { waitedMs } : {};
  if (outcome.answer) return { ...head, kind: 'done', elapsedMs, ...waited, statements: statementViews(statements, outcome.answer, lineOf) };
  const { error } = outcome;
  const code = error instanceof SqlError ? (error.errorCode ?? 'sql_error') : error instanceof TollgateError ? (error.code ?? error.name) : 'error';
  const index = error instanceof SqlError ? (error.body as { context?: { statement_index?: number } }).context?.statement_index : undefined;
  const failed = statements[index ?? (statements.length === 1 ? 0 : -1)];
  return { ...head, kind: 'error', elapsedMs, ...waited, code, message: (error as Error).message, ...(failed ? { statementLine: lineOf(failed.start) } : {}) };
}

function outcomeText(state: ResultsState): string {
  const last = state.kind === 'done' ? state.statements.at(-1)?.outcome : undefined;
  if (last?.kind === 'table') return `${last.rows.length} rows`;
  if (last?.kind === 'ok') return last.affectedRows === undefined ? 'ok' : `${last.affectedRows} affected`;
  return state.kind === 'error' ? state.code : state.kind;
}

function labelOf(document: vscode.TextDocument, picked: PickedSql): string {
  return runLabel(vscode.workspace.asRelativePath(document.uri), picked.source, document.positionAt(picked.start).line + 1);
}

function showCancellableProgress(db: string, running: Promise<unknown>, abort: AbortController): void {
  void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Running SQL on "${db}"…`, cancellable: true }, (_progress, token) => {
    token.onCancellationRequested(() => abort.abort());
    return running;
  });
}
