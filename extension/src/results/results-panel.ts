import * as vscode from 'vscode';
import { exportFormats, type ExportFormat } from '../sql/format-results.js';
import { configurePanel, createPanel, loadView } from '../webview/panel-assets.js';
import type { FromResultsView, ResultsState, ToResultsView } from '../webview/protocol.js';

const extensions: Record<ExportFormat, string> = { csv: 'csv', json: 'json', markdown: 'md' };
/** Runs kept as tabs in the panel; older ones are in Query History. */
const KEPT_RUNS = 8;

/**
 * The results grid: one panel, reused, beside the editor. It keeps the last runs (newest first), so a
 * run queued behind a failing one never hides that failure, and exports from them.
 */
export class ResultsPanel implements vscode.Disposable {
  #panel: vscode.WebviewPanel | undefined;
  #runs: ResultsState[] = [];
  #viewReady = false;
  readonly #serializer: vscode.Disposable;
  readonly #cancel = new vscode.EventEmitter<number>();
  /** The Cancel button of a running run in the panel. */
  readonly onDidRequestCancel = this.#cancel.event;

  constructor(private readonly context: vscode.ExtensionContext) {
    // After a window reload VS Code brings the panel back in its group. A restored results view stayed blank
    // in the end-to-end runs (not understood yet), so it is closed at once: its group closes with it
    // (workbench.editor.closeEmptyGroups) instead of staying behind empty (issue 18 #3), and the next run
    // opens a fresh panel. Earlier results are in Query History.
    this.#serializer = vscode.window.registerWebviewPanelSerializer('tollgate.results', {
      deserializeWebviewPanel: async (panel) => panel.dispose(),
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
  }

  #attach(panel: vscode.WebviewPanel): void {
    configurePanel(this.context, panel);
    this.#panel = panel;
    this.#viewReady = false;
    panel.onDidDispose(() => (this.#panel = undefined));
    panel.webview.onDidReceiveMessage((message: FromResultsView) => this.#receive(message));
    loadView(this.context, panel, 'results', 'SQL Results');
  }

  #post(selected = this.#runs[0]?.id ?? 0): void {
    if (!this.#panel || !this.#viewReady || this.#runs.length === 0) return;
    void this.#panel.webview.postMessage({ type: 'show', runs: this.#runs, selected } satisfies ToResultsView);
  }

  async #receive(message: FromResultsView): Promise<void> {
    if (message.type === 'ready') {
      this.#viewReady = true;
      this.#post();
      return;
    }
    if (message.type === 'cancel') return this.#cancel.fire(message.run);
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
