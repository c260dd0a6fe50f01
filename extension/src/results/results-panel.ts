import * as vscode from 'vscode';
import { exportFormats, type ExportFormat } from '../sql/format-results.js';
import { configurePanel, createPanel, loadView } from '../webview/panel-assets.js';
import type { FromResultsView, ResultsState, ToResultsView } from '../webview/protocol.js';

const extensions: Record<ExportFormat, string> = { csv: 'csv', json: 'json', markdown: 'md' };

/** The results grid: one panel, reused, beside the editor; it keeps the last result for export. */
export class ResultsPanel implements vscode.Disposable {
  #panel: vscode.WebviewPanel | undefined;
  #state: ResultsState | undefined;
  #viewReady = false;

  readonly #serializer: vscode.Disposable;

  constructor(private readonly context: vscode.ExtensionContext) {
    // Restored after a window reload with what it last showed, in its own group: without this the
    // group stayed behind empty and the next run opened yet another one (issue 18 #3).
    this.#serializer = vscode.window.registerWebviewPanelSerializer('tollgate.results', {
      deserializeWebviewPanel: async (panel, saved: { state?: ResultsState } | undefined) => {
        this.#state ??= saved?.state;
        this.#attach(panel);
      },
    });
  }

  show(state: ResultsState): void {
    this.#state = state;
    if (!this.#panel) this.#attach(createPanel(this.context, 'tollgate.results', 'SQL Results', vscode.ViewColumn.Beside));
    else if (!this.#panel.visible) this.#panel.reveal(undefined, true);
    this.#post();
  }

  #attach(panel: vscode.WebviewPanel): void {
    configurePanel(this.context, panel);
    this.#panel = panel;
    this.#viewReady = false;
    panel.onDidDispose(() => (this.#panel = undefined));
    panel.webview.onDidReceiveMessage((message: FromResultsView) => this.#receive(message));
    loadView(this.context, panel, 'results', 'SQL Results');
  }

  #post(): void {
    if (!this.#panel || !this.#viewReady || !this.#state) return;
    const pageSize = vscode.workspace.getConfiguration('tollgate').get<number>('results.pageSize') ?? 200;
    void this.#panel.webview.postMessage({ type: 'show', state: this.#state, pageSize } satisfies ToResultsView);
  }

  async #receive(message: FromResultsView): Promise<void> {
    if (message.type === 'ready') {
      this.#viewReady = true;
      this.#post();
      return;
    }
    const state = this.#state;
    if (state?.kind !== 'table') return;
    const text = exportFormats[message.format]({ column_names: state.columns, data: state.rows });
    if (message.to === 'clipboard') {
      await vscode.env.clipboard.writeText(text);
      vscode.window.setStatusBarMessage(`Copied ${state.rows.length} rows as ${message.format.toUpperCase()}`, 3000);
      return;
    }
    const target = await vscode.window.showSaveDialog({ filters: { [message.format.toUpperCase()]: [extensions[message.format]] }, saveLabel: 'Export' });
    if (target) await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(text));
  }

  dispose(): void {
    this.#serializer.dispose();
    this.#panel?.dispose();
  }
}
