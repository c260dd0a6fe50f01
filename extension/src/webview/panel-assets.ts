import * as vscode from 'vscode';
import { webviewHtml } from './webview-html.js';

/** Webview options shared by both panels: scripts on, and only this extension's `dist/webview` readable. */
export function createPanel(context: vscode.ExtensionContext, viewType: string, title: string, column: vscode.ViewColumn): vscode.WebviewPanel {
  return vscode.window.createWebviewPanel(viewType, title, { viewColumn: column, preserveFocus: true }, panelOptions(context));
}

/** A panel VS Code restored after a reload gets the same options as a new one. */
export function configurePanel(context: vscode.ExtensionContext, panel: { readonly webview: vscode.Webview }): void {
  panel.webview.options = panelOptions(context);
}

function panelOptions(context: vscode.ExtensionContext): vscode.WebviewPanelOptions & vscode.WebviewOptions {
  return { enableScripts: true, retainContextWhenHidden: true, localResourceRoots: [vscode.Uri.joinPath(context.extensionUri, 'dist', 'webview')] };
}

/** Loads `dist/webview/<script>.js` and the shared stylesheet into the panel under the strict CSP. */
export function loadView(context: vscode.ExtensionContext, panel: { readonly webview: vscode.Webview }, script: string, title: string): void {
  const asset = (file: string) => panel.webview.asWebviewUri(vscode.Uri.joinPath(context.extensionUri, 'dist', 'webview', file)).toString();
  panel.webview.html = webviewHtml({ cspSource: panel.webview.cspSource, scriptUri: asset(`${script}.js`), styleUri: asset('view.css'), title });
}

/**
 * Loads a view now, and again each time its panel is shown while the view has not said 'ready' yet. When
 * VS Code restores two panels after a window reload, one of them sometimes stays blank: its document never
 * runs its script (seen in code-server 4.100, either panel, cause not found). Setting the HTML again when
 * the user looks at it brings it back.
 */
export function loadWhenShown(surface: { readonly webview: vscode.Webview; readonly visible: boolean; onDidDispose: vscode.Event<void> } & ({ onDidChangeViewState: vscode.Event<unknown> } | { onDidChangeVisibility: vscode.Event<void> }), isReady: () => boolean, load: () => void): void {
  load();
  const shown = 'onDidChangeViewState' in surface ? surface.onDidChangeViewState : surface.onDidChangeVisibility;
  const listener = shown(() => {
    if (surface.visible && !isReady()) load();
  });
  surface.onDidDispose(() => listener.dispose());
}
