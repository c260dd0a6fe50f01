import * as vscode from 'vscode';
import { exportFormats, type ExportFormat } from '../sql/format-results.js';
import { configurePanel, createPanel, loadView, loadWhenShown, MAX_REPLACED_PANELS, type ViewLoading } from '../webview/panel-assets.js';
import type { FromResultsView, ResultsState, ToResultsView } from '../webview/protocol.js';
import { firstChunks, restorableRuns, rowsChunk } from './row-chunks.js';

const extensions: Record<ExportFormat, string> = { csv: 'csv', json: 'json', markdown: 'md' };
/** Runs kept as tabs in the panel; older ones are in Query History. */
const KEPT_RUNS = 8;
/** Workspace-state key of the finished runs a reloaded window shows again (issue 18 #3). */
const RESTORE_KEY = 'tollgate.results.runs';

/**
 * The results grid: one panel, reused, beside the editor. It keeps the last runs (newest first), so a
 * run queued behind a failing one never hides that failure, and exports from them.
 */
export class ResultsPanel implements vscode.Disposable {
  #panel: vscode.WebviewPanel | undefined;
  #runs: ResultsState[] = [];
  /** The panel's view as loaded: its runs are posted once it said 'ready'. */
  #view: ViewLoading | undefined;
  /** Panels replaced because none of their documents ran (loadWhenShown); a few at most per session. */
  #replaced = 0;
  readonly #serializer: vscode.Disposable;
  readonly #cancel = new vscode.EventEmitter<number>();
  /** The Cancel button of a running run in the panel. */
  readonly onDidRequestCancel = this.#cancel.event;

  constructor(private readonly context: vscode.ExtensionContext) {
    // After a window reload VS Code brings the panel back in its group: it shows the finished runs kept in
    // workspace state (issue 18 #3). Not awaiting the view's 'ready': VS Code holds the view's messages until
    // this resolves.
    this.#serializer = vscode.window.registerWebviewPanelSerializer('tollgate.results', {
      deserializeWebviewPanel: async (panel) => {
        // Negative ids: the new extension host numbers its runs from 1 again.
        if (this.#runs.length === 0) this.#runs = (context.workspaceState.get<ResultsState[]>(RESTORE_KEY) ?? []).map((run, index) => ({ ...run, id: -1 - index }));
        // Nothing kept (e.g. every run was still going): an empty panel would only leave an empty group.
        if (this.#runs.length === 0) return panel.dispose();
        this.#attach(panel);
      },
    });
  }

  /** Shows a run: a new one becomes the first tab, a known one (same id) is updated in place. */
  show(state: ResultsState): void {
    const at = this.#runs.findIndex((run) => run.id === state.id);
    if (at === -1) this.#runs = [state, ...this.#runs].slice(0, KEPT_RUNS);
    else this.#runs[at] = state;
    if (!this.#panel) this.#attach(createPanel(this.context, 'tollgate.results', 'SQL Results', vscode.ViewColumn.Beside));
    else if (!this.#panel.visible) this.#panel.reveal(undefined, true);
    this.#post(state.id);
    if (state.kind !== 'queued' && state.kind !== 'running') void this.context.workspaceState.update(RESTORE_KEY, restorableRuns(this.#runs));
  }

  #attach(panel: vscode.WebviewPanel): void {
    configurePanel(this.context, panel);
    this.#panel = panel;
    panel.onDidDispose(() => {
      if (this.#panel === panel) this.#panel = undefined;
    });
    panel.webview.onDidReceiveMessage((message: FromResultsView) => this.#receive(message));
    const replace = this.#replaced < MAX_REPLACED_PANELS ? () => this.#replace(panel) : undefined;
    this.#view = loadWhenShown(panel, (load) => loadView(this.context, panel, 'results', 'SQL Results', load), replace);
  }

  /**
   * A panel that runs none of its documents is replaced by a new one where it was, with the same runs: opened
   * before the old one closes, so its editor group never empties (and closes).
   */
  #replace(panel: vscode.WebviewPanel): void {
    this.#replaced++;
    this.#attach(createPanel(this.context, 'tollgate.results', 'SQL Results', panel.viewColumn ?? vscode.ViewColumn.Beside));
    panel.dispose();
  }

  #post(selected = this.#runs[0]?.id ?? 0): void {
    if (!this.#panel || !this.#view?.ready || this.#runs.length === 0) return;
    void this.#panel.webview.postMessage({ type: 'show', runs: this.#runs.map((run) => firstChunks(run)), selected } satisfies ToResultsView);
  }

  async #receive(message: FromResultsView): Promise<void> {
    if (message.type === 'ready') {
      if (this.#view?.accept(message)) this.#post();
      return;
    }
    if (message.type === 'cancel') return this.#cancel.fire(message.run);
    if (message.type === 'rows') {
      const chunk = rowsChunk(this.#runs.find((run) => run.id === message.run), message.statement, message.from);
      void this.#panel?.webview.postMessage({ type: 'rows', run: message.run, statement: message.statement, from: message.from, ...chunk } satisfies ToResultsView);
      return;
    }
    if (message.type === 'copy') {
      await vscode.env.clipboard.writeText(message.text);
      vscode.window.setStatusBarMessage(`Copied ${message.cells} cell${message.cells === 1 ? '' : 's'}`, 3000);
      return;
    }
    const run = this.#runs.find((candidate) => candidate.id === message.run);
    const outcome = run?.kind === 'done' ? run.statements[message.statement]?.outcome : undefined;
    if (outcome?.kind !== 'table') return;
    const rows = message.order ? message.order.flatMap((index) => (outcome.rows[index] ? [outcome.rows[index]] : [])) : outcome.rows;
    const text = exportFormats[message.format]({ column_names: outcome.columns, data: rows });
    if (message.to === 'clipboard') {
      await vscode.env.clipboard.writeText(text);
      vscode.window.setStatusBarMessage(`Copied ${rows.length} rows as ${message.format.toUpperCase()}`, 3000);
      return;
    }
    const target = await vscode.window.showSaveDialog({ filters: { [message.format.toUpperCase()]: [extensions[message.format]] }, saveLabel: 'Export' });
    if (target) await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(text));
  }

  dispose(): void {
    this.#serializer.dispose();
    this.#cancel.dispose();
    this.#panel?.dispose();
  }
}
