import * as vscode from 'vscode';
import { exportFormats, type ExportFormat } from '../sql/format-results.js';
import { createPanel, loadView } from '../webview/panel-assets.js';
import type { FromResultsView, ResultsState, ToResultsView } from '../webview/protocol.js';

const extensions: Record<ExportFormat, string> = { csv: 'csv', json: 'json', markdown: 'md' };

/** The results grid: one panel, reused, beside the editor; it keeps the last result for export. */
export class ResultsPanel implements vscode.Disposable {
  #panel: vscode.WebviewPanel | undefined;
  #state: ResultsState | undefined;
  #viewReady = false;

  constructor(private readonly context: vscode.ExtensionContext) {}

  show(state: ResultsState): void {
    this.#state = state;
    if (!this.#panel) this.#open();
    else if (!this.#panel.visible) this.#panel.reveal(vscode.ViewColumn.Beside, true);
    this.#post();
  }

  #open(): void {
    const panel = createPanel(this.context, 'tollgate.results', 'SQL Results', vscode.ViewColumn.Beside);
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
    this.#panel?.dispose();
  }
}
