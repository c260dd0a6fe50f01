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

/** How long a shown view may take to say 'ready' before its HTML is set again, and how often that is tried. */
const READY_GRACE_MS = 3_000;
// Up to ~30 s: in a CI run a restored panel stayed blank past three reloads (9 s), and setting the HTML of a
// view that never said 'ready' again is harmless.
const MAX_RELOADS_WHILE_SHOWN = 10;

/**
 * Loads a view now, and again each time its panel is shown while the view has not said 'ready' yet, or when it
 * stays shown without saying it. When VS Code restores two panels after a window reload, one of them sometimes
 * stays blank: its document never runs its script (seen in code-server 4.100, either panel, cause not found).
 * Setting the HTML again brings it back; the restored panel may be the one already in view, so waiting for the
 * user to switch tabs is not enough.
 */
export function loadWhenShown(surface: { readonly webview: vscode.Webview; readonly visible: boolean; onDidDispose: vscode.Event<void> } & ({ onDidChangeViewState: vscode.Event<unknown> } | { onDidChangeVisibility: vscode.Event<void> }), isReady: () => boolean, load: () => void): void {
  let reloads = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const loadAndWatch = () => {
    load();
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (surface.visible && !isReady() && reloads++ < MAX_RELOADS_WHILE_SHOWN) loadAndWatch();
    }, READY_GRACE_MS);
  };
  loadAndWatch();
  const shown = 'onDidChangeViewState' in surface ? surface.onDidChangeViewState : surface.onDidChangeVisibility;
  const listener = shown(() => {
    if (surface.visible && !isReady()) loadAndWatch();
  });
  surface.onDidDispose(() => {
    clearTimeout(timer);
    listener.dispose();
  });
}
